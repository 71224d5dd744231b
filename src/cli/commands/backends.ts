import { listBackends, type BackendStatus, describeNativeGemm } from '../../compute/index.js';
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
  const nativeGemm = backends.find((b) => b.name === 'wasm')?.nativeGemm;
  if (nativeGemm !== undefined) {
    out.line();
    if (nativeGemm.available) {
      const coretype =
        nativeGemm.coretype === undefined
          ? 'detected by OpenBLAS'
          : `OPENBLAS_CORETYPE=${nativeGemm.coretype.value}, ${nativeGemm.coretype.source === 'user' ? 'set by you' : 'chosen from /proc/cpuinfo'}`;
      out.line(`Native GEMM: yes, ${describeNativeGemm(nativeGemm)}; ${coretype}.`);
      if (nativeGemm.config !== undefined) out.line(`  ${nativeGemm.config}`);
    } else out.line(`Native GEMM: no, ${nativeGemm.reason}. wasm uses XNNPACK meanwhile.`);
  }
  out.line();
  out.line(
    `Setting: backend ${chosen} (auto: webgpu on a GPU profile when available, else wasm; --backend to choose).`,
  );
}
