import * as tf from '../compute/tfjs.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from '../compute/backends.js';
import { nativeConvActive, setNativeTrainingKernelsEnabled } from '../compute/index.js';
import { Rng } from '../core/random.js';
import { tcnParamCount } from '../profiles/index.js';
import { Tcn, tcnSize } from './tcn.js';

beforeAll(async () => {
  await useBackend('wasm');
});

function chunk(batch: number, time: number, inputs: number, seed: number): Float32Array {
  const rng = new Rng(seed, 9);
  return Float32Array.from({ length: batch * time * inputs }, () => rng.normal());
}

describe('TCN size', () => {
  it('counts parameters as PyTorch does for the same network', () => {
    // bench/pytorch-tcn.py prints 143041 for these shapes (weight norm's g included).
    expect(tcnSize({ inputs: 8, hidden: 64, layers: 6, kernel: 3 }).params).toBe(143_041);
    // The planner's own arithmetic agrees, for this shape and seed 003's.
    const shape = { inputs: 8, hidden: 64, layers: 6, kernel: 3, chunkLen: 512, checkpoint: true };
    expect(tcnParamCount(shape)).toBe(143_041);
    expect(tcnParamCount({ ...shape, hidden: 512, layers: 12 })).toBe(
      tcnSize({ inputs: 8, hidden: 512, layers: 12 }).params,
    );
    const net = new Tcn({ inputs: 8, hidden: 64, layers: 6, kernel: 3 }, 'size');
    expect(net.variables.reduce((n, v) => n + v.size, 0)).toBe(143_041);
    net.dispose();
  });

  it("counts what the network holds, for every shape the model takes (one formula with the planner's)", () => {
    for (const config of [
      { inputs: 5, hidden: 8, layers: 3, kernel: 2, norm: 'none' as const },
      { inputs: 8, hidden: 8, layers: 2, kernel: 3, headHidden: 5, outputs: 3 },
      { inputs: 12, hidden: 16, layers: 1, kernel: 4, norm: 'weight' as const, outputs: 2 },
    ]) {
      const net = new Tcn(config, 'shape');
      const held = net.variables.reduce((n, v) => n + v.size, 0);
      net.dispose();
      expect(tcnSize(config).params, JSON.stringify(config)).toBe(held);
      expect(tcnParamCount(config), JSON.stringify(config)).toBe(held);
    }
  });

  it("puts seed 003's TCN-12 with 512 channels at about 18.6 M parameters", () => {
    const size = tcnSize({ inputs: 8, hidden: 512, layers: 12, kernel: 3 });
    expect(size.params).toBeGreaterThan(18.0e6);
    expect(size.params).toBeLessThan(18.8e6);
    expect(size.receptiveField).toBe(1 + 2 * 2 * (2 ** 12 - 1));
    expect(size.layers.map((row) => row.name)).toContain('block11/conv2');
  });

  it('refuses shapes that cannot work', () => {
    expect(() => tcnSize({ inputs: 0, hidden: 8, layers: 2 })).toThrow(/inputs 0/);
    expect(() => tcnSize({ inputs: 2, hidden: 8, layers: 2, dropout: 1 })).toThrow(/dropout/);
  });
});

describe.each(['native', 'ops'] as const)('TCN (%s convolutions)', (path) => {
  beforeAll(() => {
    setNativeTrainingKernelsEnabled(path === 'native');
  });
  afterAll(() => {
    setNativeTrainingKernelsEnabled(true);
  });

  it('is causal: changing bar s moves no hidden step before s', () => {
    expect(nativeConvActive()).toBe(path === 'native');
    const net = new Tcn({ inputs: 3, hidden: 8, layers: 3, kernel: 3, seed: 2 }, 'causal');
    const [batch, time] = [2, 40];
    const x = chunk(batch, time, 3, 1);
    const run = (input: Float32Array): Float32Array =>
      tf.tidy(
        () => net.hiddenSequence(tf.tensor3d(input, [batch, time, 3])).dataSync() as Float32Array,
      );
    const base = run(x);
    const s = 23;
    const changed = x.slice();
    for (let i = 0; i < 3; i++) changed[(1 * time + s) * 3 + i] = 5;
    const after = run(changed);
    let movedAtOrAfter = 0;
    for (let t = 0; t < time; t++)
      for (let c = 0; c < 8; c++) {
        const at = (time + t) * 8 + c;
        if (t < s) expect(after[at]).toBe(base[at]);
        else if (after[at] !== base[at]) movedAtOrAfter++;
      }
    expect(movedAtOrAfter).toBeGreaterThan(0);
    // The other sample is untouched.
    expect(Array.from(after.subarray(0, time * 8))).toEqual(Array.from(base.subarray(0, time * 8)));
    net.dispose();
  });

  it('gives the same gradients with gradient checkpointing, dropout included', () => {
    const net = new Tcn(
      { inputs: 4, hidden: 16, layers: 3, kernel: 3, dropout: 0.2, seed: 5 },
      'ckpt',
    );
    const x = tf.tensor3d(chunk(3, 30, 4, 2), [3, 30, 4]);
    const y = tf.tensor2d([0.5, -1, 2], [3, 1]);
    const gradients = (checkpoint: boolean): Record<string, Float32Array> => {
      const { value, grads } = tf.variableGrads(
        () =>
          tf.losses.meanSquaredError<tf.Tensor, tf.Scalar>(
            y,
            net.apply(x, { training: true, seed: 7, checkpoint }),
          ),
        net.variables,
      );
      const out: Record<string, Float32Array> = { loss: value.dataSync() as Float32Array };
      for (const [name, g] of Object.entries(grads)) out[name] = g.dataSync() as Float32Array;
      tf.dispose([value, ...Object.values(grads)]);
      return out;
    };
    const before = tf.memory().numTensors;
    const plain = gradients(false);
    const checkpointed = gradients(true);
    expect(tf.memory().numTensors).toBe(before);
    expect(Object.keys(checkpointed).sort()).toEqual(Object.keys(plain).sort());
    for (const [name, values] of Object.entries(plain)) {
      const other = checkpointed[name] as Float32Array;
      for (let i = 0; i < values.length; i++)
        expect(Math.abs((other[i] ?? 0) - (values[i] ?? 0))).toBeLessThanOrEqual(
          1e-6 * (1 + Math.abs(values[i] ?? 0)),
        );
    }
    // Dropout is on: another seed gives another loss.
    const other = tf.tidy(
      () => tf.losses.meanSquaredError(y, net.apply(x, { training: true, seed: 8 })).dataSync()[0],
    );
    expect(other).not.toBe(plain['loss']?.[0]);
    tf.dispose([x, y]);
    net.dispose();
  });
});

describe('TCN encoder', () => {
  it('encodes a chunk as its last hidden step, or the mean of its steps', () => {
    const last = new Tcn({ inputs: 2, hidden: 6, layers: 2, seed: 1 }, 'enc-last');
    const mean = new Tcn({ inputs: 2, hidden: 6, layers: 2, seed: 1, pooling: 'mean' }, 'enc-mean');
    const x = tf.tensor3d(chunk(2, 12, 2, 3), [2, 12, 2]);
    const h = last.hiddenSequence(x).arraySync();
    const zLast = last.encode(x).arraySync();
    const zMean = mean.encode(x).arraySync();
    for (let b = 0; b < 2; b++)
      for (let c = 0; c < 6; c++) {
        expect(zLast[b]?.[c]).toBeCloseTo(h[b]?.[11]?.[c] ?? Number.NaN, 6);
        const avg = (h[b] ?? []).reduce((s, step) => s + (step[c] ?? 0), 0) / 12;
        expect(zMean[b]?.[c]).toBeCloseTo(avg, 5);
      }
    expect(last.apply(x).shape).toEqual([2, 1]);
    expect(last.encoderVariables.every((v) => v.name.includes('/block'))).toBe(true);
    expect(Object.keys(last.namedVariables())).toContain('block1/conv2/g');
    x.dispose();
    last.dispose();
    mean.dispose();
  });
});
