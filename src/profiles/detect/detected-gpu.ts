/** The tools detection asks, in the order it reports them. */
export const DETECTION_TOOLS = ['nvidia-smi', 'rocm-smi', 'amd-smi', 'sysfs'] as const;
/** A detection tool. */
export type DetectionTool = (typeof DETECTION_TOOLS)[number];

/** One GPU as a tool reported it. Fields the tool could not read are absent. */
export interface DetectedGpu {
  /** The index the tool gives it (CUDA/ROCm device order); kept so a worker can pick its card later. */
  index: number;
  /** The name as reported, e.g. "NVIDIA H100 80GB HBM3". */
  name: string;
  vendor: 'nvidia' | 'amd';
  tool: DetectionTool;
  uuid?: string;
  memoryTotalBytes?: number;
  memoryUsedBytes?: number;
  utilizationPct?: number;
  smClockMHz?: number;
  powerW?: number;
}

/** What parsing one tool's output gave: its GPUs, and the lines it had to skip. */
export interface ParsedToolOutput {
  gpus: DetectedGpu[];
  /** Problems that did not stop parsing, e.g. a malformed line or an unreadable field. */
  warnings: string[];
}

/** Free memory of a detected GPU, when both total and used were read. */
export function freeMemoryBytes(gpu: DetectedGpu): number | undefined {
  if (gpu.memoryTotalBytes === undefined || gpu.memoryUsedBytes === undefined) return undefined;
  return Math.max(0, gpu.memoryTotalBytes - gpu.memoryUsedBytes);
}
