/*
 * Which adapter Dawn gives tradelab, from $TRADELAB_WEBGPU_ADAPTER: read in one place for the
 * engine's device, the probe and tfjs's webgpu globals, so they all take the same card.
 */

/**
 * $TRADELAB_WEBGPU_ADAPTER: unset, Dawn's high-performance adapter; `none`, act as if there were
 * no adapter; any other value, the adapter whose name contains it (Dawn's `adapter=` flag), so
 * that each worker of a box with GPUs of different names takes its own (docs/gpu.md).
 */
export function webgpuAdapterSetting(): 'detect' | 'none' | { name: string } {
  const value = process.env.TRADELAB_WEBGPU_ADAPTER;
  if (value === undefined || value === '') return 'detect';
  if (value === 'none') return 'none';
  return { name: value };
}

/** The flags Dawn's instance is created with: the adapter $TRADELAB_WEBGPU_ADAPTER names. */
export function dawnFlags(): string[] {
  const setting = webgpuAdapterSetting();
  return typeof setting === 'object' ? [`adapter=${setting.name}`] : [];
}
