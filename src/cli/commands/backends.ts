import { listBackends, type BackendStatus } from '../../compute/index.js';
import type { CommandContext } from '../command-spec.js';
import { renderTable } from '../output.js';

/** `tradelab backends`: the TensorFlow.js backends, which can run here, and why not the others. */
export async function run(context: CommandContext): Promise<void> {
  const { out } = context;
  const backends = await listBackends();
  const chosen = context.project().config.settings.backend;
  if (out.json) {
    for (const b of backends) out.record(b);
    return;
  }
  for (const line of renderTable<BackendStatus>(backends, [
    { header: 'BACKEND', value: (b) => b.name },
    { header: 'HERE', value: (b) => (b.available ? 'yes' : 'no') },
    { header: 'DETAIL', value: (b) => b.detail },
  ]))
    out.line(line);
  const wasm = backends.find((b) => b.name === 'wasm');
  const nativeGemm = wasm?.nativeGemm;
  if (nativeGemm !== undefined) {
    out.line();
    if (nativeGemm.available) {
      out.line(
        `Native GEMM: yes, tradelab's own kernels; this CPU runs ${(nativeGemm.kernels ?? []).join(', ')} (best first).`,
      );
      const blas = nativeGemm.blas;
      if (blas?.available === true) {
        const coretype =
          blas.coretype === undefined
            ? ''
            : `; OPENBLAS_CORETYPE=${blas.coretype.value}, ${blas.coretype.source === 'user' ? 'set by you' : 'chosen from /proc/cpuinfo'}`;
        const kernels = blas.corename === undefined ? '' : `, ${blas.corename} kernels`;
        out.line(
          `System BLAS: ${blas.vendor ?? 'BLAS'} (${blas.path ?? '?'}${kernels}${coretype}).`,
        );
        if (blas.config !== undefined) out.line(`  ${blas.config}`);
      } else if (blas !== undefined) out.line(`System BLAS: ${blas.reason}.`);
    } else out.line(`Native GEMM: no, ${nativeGemm.reason}. wasm uses XNNPACK meanwhile.`);
  }
  if (wasm?.autoMatMul !== undefined)
    out.line(`Matrix products (matmul auto): ${wasm.autoMatMul.path}: ${wasm.autoMatMul.why}.`);
  out.line();
  out.line(
    `Setting: backend ${chosen} (auto: wasm; gpu, tradelab's engine, on a GPU profile with a hardware adapter; --backend to choose).`,
  );
}
