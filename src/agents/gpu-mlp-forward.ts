import {
  dispatchOf,
  gemmKernel,
  gemmUniform,
  gemmWorkgroups,
  uniformOf,
  type Dispatch,
  type GpuDevice,
  type ParameterSlot,
} from '../gpu/index.js';

/*
 * One network of the PPO pair (`actor` or `critic`, in ppoParameterSlots' layout) run forward on
 * the device over `rows` rows of `input`: one GEMM per layer with its bias and activation in the
 * epilogue, reading the weights straight from the parameters buffer. The rollout acts with it and
 * the evaluation writes the actor's mean into the env's actions with it.
 */

/** What {@link mlpForward} builds. */
export interface MlpForwardSpec {
  name: 'actor' | 'critic';
  /** Layer widths: input, hidden…, output. */
  sizes: readonly number[];
  activation: 'relu' | 'tanh';
  /** The last layer's epilogue: the raw output, or tanh of it (a squashed mean). */
  lastEpilogue: 'bias' | 'bias-tanh';
  rows: number;
  input: GPUBuffer;
  /** Where the last layer writes (rows × output). */
  output: GPUBuffer;
  parameters: GPUBuffer;
  slots: readonly ParameterSlot[];
  /** Collects the buffers it allocates (hidden outputs, uniforms), for the caller to destroy. */
  owned: GPUBuffer[];
}

/** The forward pass's dispatches, in order. */
export async function mlpForward(gpu: GpuDevice, spec: MlpForwardSpec): Promise<Dispatch[]> {
  const offsetOf = (name: string): number => {
    const slot = spec.slots.find((s) => s.name === name);
    if (slot === undefined) throw new Error(`no parameter slot ${name}`);
    return slot.offset;
  };
  const { sizes, rows: n } = spec;
  const dispatches: Dispatch[] = [];
  let input = spec.input;
  for (let l = 0; l + 1 < sizes.length; l++) {
    const k = sizes[l] as number;
    const width = sizes[l + 1] as number;
    const last = l + 2 === sizes.length;
    const variant = {
      transposeA: false,
      transposeB: false,
      epilogue: last ? spec.lastEpilogue : spec.activation === 'relu' ? 'bias-relu' : 'bias-tanh',
    } as const;
    const kernel = await gpu.pipelines.kernel(gemmKernel(variant));
    let output = spec.output;
    if (!last) {
      output = gpu.storageBuffer(n * width * 4, `${spec.name} hidden ${l}`);
      spec.owned.push(output);
    }
    const uniform = uniformOf(
      gpu,
      gemmUniform({
        m: n,
        n: width,
        k,
        lda: k,
        ldb: width,
        ldc: width,
        offsetB: offsetOf(`${spec.name}/w${l}`),
        offsetBias: offsetOf(`${spec.name}/b${l}`),
      }),
      kernel.spec.label,
    );
    spec.owned.push(uniform);
    dispatches.push(
      dispatchOf(
        gpu,
        kernel,
        [uniform, input, spec.parameters, output, spec.parameters],
        [...gemmWorkgroups(variant, n, width)],
      ),
    );
    input = output;
  }
  return dispatches;
}
