import { spawn } from 'node:child_process';
import { dawnFlags, webgpuAdapterSetting } from '../gpu/dawn-flags.js';
import { existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/*
 * WebGPU in Node comes from the `webgpu` package: Dawn (Chrome's WebGPU) as a native addon,
 * `dawn.node`, on Vulkan (Linux), Metal (macOS) or D3D12 (Windows). Both it and
 * `@tensorflow/tfjs-backend-webgpu` are optional dependencies, so they are imported by a name held
 * in a variable: the build must not need their types, and a machine without them must still run.
 * The small interfaces below are the part of the WebGPU API that tradelab touches.
 */

/** The part of `GPUAdapterInfo` tradelab reports. */
interface GpuAdapterInfoLike {
  vendor?: string;
  architecture?: string;
  device?: string;
  description?: string;
  isFallbackAdapter?: boolean;
}

/** The part of `GPUAdapter` tradelab reads. */
interface GpuAdapterLike {
  info?: GpuAdapterInfoLike;
}

/** The part of `GPU` (`navigator.gpu`) tradelab calls. */
interface GpuLike {
  requestAdapter(options?: {
    powerPreference?: 'low-power' | 'high-performance';
  }): Promise<GpuAdapterLike | null>;
}

/** What the `webgpu` package exports. */
interface WebGpuModule {
  create(flags: string[]): GpuLike;
  /** The WebGPU classes and constants (`GPUBufferUsage`, …) a browser has as globals. */
  globals: Record<string, unknown>;
}

/** The adapter WebGPU would run on. */
export interface WebGpuAdapterInfo {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** A CPU implementation (lavapipe/llvmpipe, SwiftShader, WARP): it works, but wasm is faster. */
  software: boolean;
}

/** Whether WebGPU has an adapter here: the adapter, or why there is none. */
export type WebGpuProbe =
  | { found: true; adapter: WebGpuAdapterInfo }
  | {
      found: false;
      reason: string;
      /** True when the reason is that the packages are not installed. */
      missing?: boolean;
    };

/** Options for {@link probeWebGpuAdapter}. */
export interface ProbeWebGpuOptions {
  /** How long to wait for `requestAdapter()`. Default 10,000 ms. */
  timeoutMs?: number;
  /** The packages that must be installed. Default {@link WEBGPU_PACKAGES} (tfjs's webgpu backend). */
  packages?: readonly string[];
}

const require = createRequire(import.meta.url);

/** The npm packages the webgpu backend needs, in the order they are reported missing. */
export const WEBGPU_PACKAGES = ['webgpu', '@tensorflow/tfjs-backend-webgpu'] as const;

/** The packages of `packages` (default {@link WEBGPU_PACKAGES}) that cannot be resolved from here. */
export function missingWebGpuPackages(packages: readonly string[] = WEBGPU_PACKAGES): string[] {
  // Resolved, not imported: importing tfjs-backend-webgpu before navigator.gpu exists would make
  // it skip registering the backend for the rest of the process.
  return packages.filter((name) => {
    try {
      require.resolve(name);
      return false;
    } catch {
      return true;
    }
  });
}

async function loadWebGpu(): Promise<WebGpuModule> {
  const name = 'webgpu';
  return (await import(name)) as WebGpuModule;
}

const SOFTWARE_ADAPTER = /llvmpipe|lavapipe|swiftshader|software|microsoft basic render|warp/i;

/** The adapter's info in a plain object, software or not. */
function adapterInfo(adapter: GpuAdapterLike): WebGpuAdapterInfo {
  const info = adapter.info ?? {};
  const fields = {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    device: info.device ?? '',
    description: info.description ?? '',
  };
  const software =
    info.isFallbackAdapter === true ||
    SOFTWARE_ADAPTER.test(`${fields.architecture} ${fields.device} ${fields.description}`);
  return { ...fields, software };
}

/** Where the Vulkan loader looks for drivers (ICD manifests), unless VK_DRIVER_FILES says. */
const VULKAN_ICD_DIRS = [
  '/usr/share/vulkan/icd.d',
  '/usr/local/share/vulkan/icd.d',
  '/etc/vulkan/icd.d',
];

/**
 * Why Dawn found no adapter on Linux: no Vulkan loader, no Vulkan driver, or neither of those
 * (then what Dawn said, `said`, is the reason).
 */
function whyNoLinuxAdapter(said: readonly string[]): string {
  // dlopen the loader as Dawn does: a library that is not a Node addon loads and then fails
  // "did not self-register", which means it is there; any other failure is the loader's reason.
  try {
    process.dlopen({ exports: {} }, 'libvulkan.so.1');
  } catch (error) {
    const message = (error as Error).message;
    if (!message.includes('did not self-register'))
      return `the Vulkan loader libvulkan.so.1 could not be loaded (${message}): install it (Debian/Ubuntu: apt-get install libvulkan1) and a Vulkan driver`;
  }
  const userDrivers = process.env.VK_DRIVER_FILES ?? process.env.VK_ICD_FILENAMES;
  if (userDrivers === undefined || userDrivers === '') {
    const manifests = VULKAN_ICD_DIRS.filter((dir) => existsSync(dir)).flatMap((dir) =>
      readdirSync(dir).filter((file) => file.endsWith('.json')),
    );
    if (manifests.length === 0)
      return `libvulkan.so.1 is installed but no Vulkan driver is (nothing in ${VULKAN_ICD_DIRS.join(', ')}): install the GPU's driver (NVIDIA: the proprietary driver; AMD/Intel: mesa-vulkan-drivers)`;
  }
  return `Vulkan is installed but Dawn could use none of its devices (a driver too old for WebGPU, e.g. Debian 12's Mesa 22.3 where Mesa 25 works, or none installed)${dawnSaid(said)}`;
}

/*
 * The adapter is asked for in a child process: Dawn's native code writes its warnings straight to
 * file descriptor 2 (`Warning: Couldn't load Vulkan: libvulkan.so.1: cannot open shared object
 * file …` on every machine without Vulkan), which no JavaScript in this process can catch. The
 * child's stderr is read instead, and what it says becomes part of our reason; the child loads
 * Dawn by the path this process resolves, and answers one JSON line.
 */
const PROBE_CHILD = `
const [webgpuPath, flags] = process.argv.slice(1);
const answer = (value) => process.stdout.write(JSON.stringify(value) + '\\n', () => process.exit(0));
let webgpu;
try {
  webgpu = await import(webgpuPath);
} catch (error) {
  answer({ loadError: String(error?.message ?? error) });
}
if (webgpu !== undefined) {
  try {
    const adapter = await webgpu.create(JSON.parse(flags)).requestAdapter({ powerPreference: 'high-performance' });
    const info = adapter?.info ?? {};
    answer(adapter === null ? { adapter: null } : { adapter: {
      vendor: info.vendor, architecture: info.architecture, device: info.device,
      description: info.description, isFallbackAdapter: info.isFallbackAdapter,
    } });
  } catch (error) {
    answer({ requestError: String(error?.message ?? error) });
  }
}
`;

/** What the probe child answered, and what Dawn said on its stderr. */
interface ProbeChildResult {
  answer:
    | { adapter: GpuAdapterInfoLike | null }
    | { loadError: string }
    | { requestError: string }
    | undefined;
  /** Dawn's warnings, one line each, without the native source locations under them. */
  said: string[];
  timedOut: boolean;
  exit: string;
}

function runProbeChild(webgpuPath: string, timeoutMs: number): Promise<ProbeChildResult> {
  return new Promise((resolvePromise) => {
    const child = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        PROBE_CHILD,
        pathToFileURL(webgpuPath).href,
        JSON.stringify(dawnFlags()),
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const finish = (exit: string, timedOut: boolean): void => {
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      let answer: ProbeChildResult['answer'];
      try {
        answer = line === undefined ? undefined : (JSON.parse(line) as ProbeChildResult['answer']);
      } catch {
        answer = undefined;
      }
      const said = stderr
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l !== '' && !l.startsWith('at '))
        .map((l) => l.replace(/^Warning:\s*/, ''));
      resolvePromise({ answer, said, timedOut, exit });
    };
    child.on('error', (error) => {
      finish(`could not start: ${error.message}`, false);
    });
    child.on('close', (code, signal) => {
      finish(signal === null ? `exit ${code}` : `signal ${signal}`, signal === 'SIGTERM');
    });
  });
}

/** Dawn's own words, for a reason: `; Dawn said: …`, or nothing when it said nothing. */
function dawnSaid(said: readonly string[]): string {
  return said.length === 0 ? '' : `; Dawn said: ${[...new Set(said)].join(' / ')}`;
}

/**
 * Looks for the WebGPU adapter tfjs-backend-webgpu would use (high-performance, as it asks) and
 * describes it, or says why there is none, in a child process (see above), so that nothing Dawn
 * prints reaches this process's stderr and this process never loads Dawn for a look.
 */
export async function probeWebGpuAdapter(options: ProbeWebGpuOptions = {}): Promise<WebGpuProbe> {
  const packages = options.packages ?? WEBGPU_PACKAGES;
  const missing = missingWebGpuPackages(packages);
  if (missing.length > 0)
    return {
      found: false,
      reason: `${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} not installed: npm install ${packages.join(' ')}`,
      missing: true,
    };
  if (webgpuAdapterSetting() === 'none')
    return {
      found: false,
      reason: 'TRADELAB_WEBGPU_ADAPTER=none says to act as if there were none',
    };
  const timeoutMs = options.timeoutMs ?? 10_000;
  const child = await runProbeChild(require.resolve('webgpu'), timeoutMs);
  const { answer } = child;
  if (child.timedOut)
    return { found: false, reason: `requestAdapter() did not answer in ${timeoutMs} ms` };
  if (answer === undefined)
    return {
      found: false,
      reason: `the WebGPU probe process ended (${child.exit}) without an answer${dawnSaid(child.said)}`,
    };
  if ('loadError' in answer)
    return {
      found: false,
      reason: `the webgpu package's dawn.node failed to load on ${process.platform}-${process.arch}: ${answer.loadError}`,
    };
  if ('requestError' in answer)
    return { found: false, reason: `requestAdapter() failed: ${answer.requestError}` };
  if (answer.adapter !== null)
    return { found: true, adapter: adapterInfo({ info: answer.adapter }) };
  return {
    found: false,
    reason:
      process.platform === 'linux'
        ? whyNoLinuxAdapter(child.said)
        : `Dawn found no ${process.platform === 'darwin' ? 'Metal' : 'D3D12 or Vulkan'} device${dawnSaid(child.said)}`,
  };
}

/** One line for an adapter, e.g. "llvmpipe: Mesa 25.0.7 (LLVM 15.0.6) (mesa, software)". */
export function describeWebGpuAdapter(adapter: WebGpuAdapterInfo): string {
  const name = adapter.description || adapter.device || 'unnamed adapter';
  const about = [adapter.vendor, adapter.architecture].filter((s) => s !== '');
  if (adapter.software && !about.includes('software')) about.push('software');
  return about.length > 0 ? `${name} (${about.join(', ')})` : name;
}

/**
 * Gives this process what a browser has and tfjs-backend-webgpu expects: `navigator.gpu` and the
 * WebGPU globals (`GPUBufferUsage`, `GPUMapMode`, …). Globals already there are left alone. Must
 * run before tfjs-backend-webgpu is first imported, which registers its backend only when
 * `navigator.gpu` exists.
 */
export async function installWebGpuGlobals(): Promise<void> {
  const global = globalThis as Record<string, unknown>;
  const navigator = global.navigator as { gpu?: unknown } | undefined;
  if (navigator?.gpu !== undefined) return;
  const webgpu = await loadWebGpu();
  for (const [name, value] of Object.entries(webgpu.globals))
    if (!(name in global)) global[name] = value;
  const gpu = webgpu.create(dawnFlags());
  // Node 21+ has a navigator without gpu; Node 20 has none.
  if (navigator === undefined) global.navigator = { gpu };
  else Object.defineProperty(navigator, 'gpu', { value: gpu, configurable: true });
}
