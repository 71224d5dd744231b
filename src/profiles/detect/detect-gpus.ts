import type { DetectedGpu, DetectionTool, ParsedToolOutput } from './detected-gpu.js';
import { AMD_SMI_ARGS, parseAmdSmiStatic } from './parse-amd-smi.js';
import { NVIDIA_SMI_ARGS, parseNvidiaSmiCsv } from './parse-nvidia-smi.js';
import { parseRocmSmiJson, ROCM_SMI_ARGS } from './parse-rocm-smi.js';
import { DEFAULT_DRM_ROOT, readSysfsDrm } from './read-sysfs-drm.js';
import { runTool, type ToolRun } from './run-tool.js';

/** What happened when one tool was asked. */
export type ToolStatus =
  | 'found' // reported GPUs that detection uses
  | 'superseded' // reported GPUs, but a more detailed tool already listed the same vendor's cards
  | 'none' // ran, no GPU
  | 'missing' // not installed (not on PATH)
  | 'failed' // exited with an error
  | 'timeout' // did not answer in time and was killed
  | 'garbage' // answered with output we cannot read
  | 'skipped'; // not asked

/** One tool's part in detection, for `profiles detect`. */
export interface ToolReport {
  tool: DetectionTool;
  /** The command line, or the directory read. */
  command: string;
  status: ToolStatus;
  /** One line: what it found or why not. */
  detail: string;
  gpus: DetectedGpu[];
  warnings: string[];
  durationMs: number;
}

/** Everything detection found. */
export interface Detection {
  /** The GPUs detection uses: NVIDIA from nvidia-smi, AMD from the first AMD source that answered. */
  gpus: DetectedGpu[];
  tools: ToolReport[];
}

/** Options for {@link detectGpus}. */
export interface DetectOptions {
  /** Time limit per tool. Default 5000 ms. */
  timeoutMs?: number;
  /** Environment of the tools (its `PATH` decides which binaries run). Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** DRM sysfs directory. Default: `TRADELAB_SYSFS_DRM` from `env`, else `/sys/class/drm`. */
  drmRoot?: string;
}

/**
 * Asks nvidia-smi, rocm-smi and amd-smi (in parallel, each time-limited) and sysfs which GPUs this
 * machine has. A tool that is missing, fails, hangs or prints garbage is reported and skipped.
 */
export async function detectGpus(options: DetectOptions = {}): Promise<Detection> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const env = options.env ?? process.env;
  const drmRoot = options.drmRoot ?? env.TRADELAB_SYSFS_DRM ?? DEFAULT_DRM_ROOT;
  const ask = (
    tool: DetectionTool,
    args: readonly string[],
    parse: (text: string) => ParsedToolOutput,
  ) => runTool(tool, args, { timeoutMs, env }).then((run) => report(tool, args, run, parse));

  const [nvidia, rocm, amd] = await Promise.all([
    ask('nvidia-smi', NVIDIA_SMI_ARGS, parseNvidiaSmiCsv),
    ask('rocm-smi', ROCM_SMI_ARGS, parseRocmSmiJson),
    ask('amd-smi', AMD_SMI_ARGS, parseAmdSmiStatic),
  ]);
  const started = performance.now();
  let sysfs: ToolReport;
  try {
    const parsed = readSysfsDrm(drmRoot);
    sysfs = {
      tool: 'sysfs',
      command: `${drmRoot}/card*/device/mem_info_vram_total`,
      status: parsed.gpus.length > 0 ? 'found' : 'none',
      detail: parsed.gpus.length > 0 ? summary(parsed.gpus) : 'no amdgpu card with VRAM listed',
      gpus: parsed.gpus,
      warnings: parsed.warnings,
      durationMs: Math.round(performance.now() - started),
    };
  } catch (error) {
    sysfs = {
      tool: 'sysfs',
      command: drmRoot,
      status: 'failed',
      detail: `cannot read: ${error instanceof Error ? error.message : String(error)}`,
      gpus: [],
      warnings: [],
      durationMs: Math.round(performance.now() - started),
    };
  }

  // rocm-smi reports used memory, amd-smi static does not, sysfs has no marketing names: first wins.
  const amdSources = [rocm, amd, sysfs];
  const amdSource = amdSources.find((r) => r.status === 'found');
  for (const r of amdSources) {
    if (r.status === 'found' && r !== amdSource) {
      r.status = 'superseded';
      r.detail = `${r.detail} (same cards as ${amdSource?.tool ?? '?'}, which reports more)`;
    }
  }
  return {
    gpus: [...nvidia.gpus, ...(amdSource?.gpus ?? [])],
    tools: [nvidia, rocm, amd, sysfs],
  };
}

function report(
  tool: DetectionTool,
  args: readonly string[],
  run: ToolRun,
  parse: (text: string) => ParsedToolOutput,
): ToolReport {
  const base = {
    tool,
    command: [tool, ...args].join(' '),
    durationMs: run.durationMs,
    gpus: [],
    warnings: [],
  };
  switch (run.status) {
    case 'missing':
      return { ...base, status: 'missing', detail: 'not installed (not on PATH)' };
    case 'timeout':
      return { ...base, status: 'timeout', detail: `no answer in ${run.durationMs} ms; killed` };
    case 'failed': {
      const said = firstLine(run.stderr) ?? firstLine(run.stdout) ?? 'no output';
      const how = run.signal === null ? `exit ${run.exitCode ?? '?'}` : `killed by ${run.signal}`;
      const none = /no devices were found|no supported gpus/i.test(`${run.stdout}\n${run.stderr}`);
      return { ...base, status: none ? 'none' : 'failed', detail: `${how}: ${said}` };
    }
    case 'ok':
      try {
        const parsed = parse(run.stdout);
        if (parsed.gpus.length === 0) {
          return {
            ...base,
            status: parsed.warnings.length > 0 ? 'garbage' : 'none',
            detail: parsed.warnings[0] ?? 'no GPU',
            warnings: parsed.warnings,
          };
        }
        return {
          ...base,
          status: 'found',
          detail: summary(parsed.gpus),
          gpus: parsed.gpus,
          warnings: parsed.warnings,
        };
      } catch (error) {
        // rocm-smi says "Driver not initialized" on stderr and exits 0 with nothing on stdout.
        if (/^\s*$/.test(run.stdout))
          return { ...base, status: 'none', detail: firstLine(run.stderr) ?? 'no output' };
        return {
          ...base,
          status: 'garbage',
          detail: `unreadable output: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
  }
}

function summary(gpus: readonly DetectedGpu[]): string {
  const counts = new Map<string, number>();
  for (const gpu of gpus) counts.set(gpu.name, (counts.get(gpu.name) ?? 0) + 1);
  return [...counts].map(([name, n]) => (n > 1 ? `${n}× ${name}` : name)).join(', ');
}

function firstLine(text: string): string | undefined {
  const line = text.split(/\r?\n/).find((l) => l.trim() !== '');
  return line === undefined ? undefined : line.trim().slice(0, 160);
}
