import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { benchPpoUpdate } from './ppo-update-bench.js';
import { describeReferenceBlas, runPytorchReference } from './pytorch-reference.js';

/*
 * PyTorch is not installed where CI runs, so an interpreter that prints what a reference script
 * prints stands in for python3 here (TRADELAB_PYTHON): what is tested is tradelab's side, that the
 * reference runs without the OpenBLAS handicaps, is read, and becomes the target's reference.
 * bench/reference_env.py's own side runs with the real scripts (bench ppo-update where PyTorch is).
 */

const dir = mkdtempSync(join(tmpdir(), 'tradelab-reference-'));
const saved = {
  python: process.env.TRADELAB_PYTHON,
  coretype: process.env.OPENBLAS_CORETYPE,
};

afterEach(() => {
  for (const [name, value] of [
    ['TRADELAB_PYTHON', saved.python],
    ['OPENBLAS_CORETYPE', saved.coretype],
  ] as const)
    if (value === undefined) Reflect.deleteProperty(process.env, name);
    else process.env[name] = value;
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** An interpreter that prints a reference's JSON line, with the OPENBLAS_CORETYPE it was given. */
function fakePython(rate: number): string {
  const path = join(dir, `python-${rate}`);
  writeFileSync(
    path,
    [
      '#!/bin/sh',
      `echo '{"name": "PPO update, PyTorch 9.9 CPU, 1 thread(s)", "rate": ${rate}, "seconds": 0.5, "runs": [0.5],' \\`,
      `  '"blas": {"library": "openblas", "core": "Haswell", "config": null, "cleared": null},' \\`,
      `  '"coretype": "'"\${OPENBLAS_CORETYPE:-unset}"'", "args": "'"$*"'"}'`,
      '',
    ].join('\n'),
  );
  chmodSync(path, 0o755);
  return path;
}

/** bench ppo-update on tiny shapes: the fast paths only, once. */
const tinyBench = (): ReturnType<typeof benchPpoUpdate> =>
  benchPpoUpdate({ netDim: 8, batch: 32, updates: 1, repeat: 1, stock: false, split: false });

describe('runPytorchReference', () => {
  it('runs the script without OPENBLAS_CORETYPE, with its arguments and --json', async () => {
    process.env.TRADELAB_PYTHON = fakePython(1234);
    process.env.OPENBLAS_CORETYPE = 'Prescott';
    const reference = await runPytorchReference('pytorch-ppo-update.py', ['--batch', '64'], 'rate');
    if ('unavailable' in reference) throw new Error(reference.unavailable);
    expect(reference.rate).toBe(1234);
    expect(reference.record.coretype).toBe('unset');
    expect(String(reference.record.args)).toMatch(
      /bench\/pytorch-ppo-update\.py --batch 64 --json$/,
    );
    expect(describeReferenceBlas(reference.blas)).toBe('OpenBLAS Haswell kernels');
  });

  it('says why there is no reference instead of a ratio', async () => {
    process.env.TRADELAB_PYTHON = join(dir, 'no-such-python');
    const missing = await runPytorchReference('pytorch-ppo-update.py', [], 'rate');
    expect(missing).toEqual({ unavailable: `${join(dir, 'no-such-python')} was not found` });
    const results = await tinyBench();
    expect(results.every((r) => r.target === undefined)).toBe(true);
    expect(results.map((r) => r.note).filter((n) => n !== undefined)).toEqual([
      `no PyTorch reference in this run (${join(dir, 'no-such-python')} was not found): no ratio is printed`,
    ]);
  });

  it("puts the reference's row beside tradelab's and sets the target from it", async () => {
    process.env.TRADELAB_PYTHON = fakePython(1000);
    const results = await tinyBench();
    const reference = results.at(-1);
    expect(reference?.name).toBe('PPO update, PyTorch 9.9 CPU, 1 thread(s) (reference)');
    expect(reference?.rate).toBe(1000);
    const withTarget = results.filter((r) => r.target !== undefined);
    expect(withTarget).toHaveLength(1);
    expect(withTarget[0]?.target).toBeCloseTo(1200, 9);
    // The fastest of tradelab's own rows carries it.
    const fastest = Math.max(...results.slice(0, -1).map((r) => r.rate));
    expect(withTarget[0]?.rate).toBe(fastest);
    expect(withTarget[0]?.targetSource).toMatch(
      /^1\.2× PyTorch's update measured in this run on these shapes, one thread \(1,000 samples\/s, OpenBLAS Haswell kernels\); the best path is [\d.]+× it/,
    );
  });
});
