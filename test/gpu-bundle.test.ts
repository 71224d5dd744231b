import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from './support/run-cli.js';

/*
 * The GPU bundle (scripts/gpu-bundle.sh) as it is meant to be used: built here, copied alone into an
 * empty directory, and run there. With no GPU here it runs on wasm with tiny shapes (--backend wasm
 * --quick), which still goes through everything a GPU machine needs but the GPU: the unpacking, the
 * bundled Node and addons, Dawn's dawn.node loading, the bundled Vulkan loader being found, and the
 * results files. It is built with xz -0, which takes seconds where -9 takes minutes: the size check
 * on it is stricter than on the release build (about 38 MiB here against 30 MiB at -9).
 */

const run = promisify(execFile);
const LIMIT = 64 * 1024 * 1024;
const BUILD_MS = 240_000;
const RUN_MS = 180_000;

/** The machine's tools, with this test's Node first (the build bundles the `node` on PATH). */
const env = {
  PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin`,
  HOME: process.env.HOME ?? '/tmp',
};

describe.runIf(process.platform === 'linux' || process.env.CI === 'true')('the GPU bundle', () => {
  let bundle = '';
  let built = '';

  beforeAll(async () => {
    bundle = join(tempDir('tradelab-gpu-bundle-'), 'tradelab-gpu-bundle.run');
    const result = await run(
      'bash',
      [join(REPO_ROOT, 'scripts', 'gpu-bundle.sh'), '--xz-level', '0', '--out', bundle],
      { env, maxBuffer: 16 * 1024 * 1024 },
    );
    built = result.stdout;
  }, BUILD_MS);

  it('is one file of at most 64 MiB, and says its size', () => {
    const size = statSync(bundle).size;
    expect(size).toBeLessThanOrEqual(LIMIT);
    expect(built).toContain(`${bundle}: ${size} bytes (`);
  });

  it(
    'unpacks into an empty directory and runs there on wasm, with its own Node, Dawn and Vulkan loader',
    async () => {
      const work = tempDir('tradelab-gpu-run-');
      copyFileSync(bundle, join(work, 'tradelab-gpu-bundle.run'));
      const drm = join(tempDir('tradelab-gpu-drm-'), 'drm');
      mkdirSync(drm);
      const result = await run(
        'sh',
        ['tradelab-gpu-bundle.run', 'results', '--backend', 'wasm', '--quick'],
        { cwd: work, env: { ...env, TRADELAB_SYSFS_DRM: drm }, maxBuffer: 16 * 1024 * 1024 },
      );
      expect(result.stderr).toContain('unpacking into tradelab-gpu');
      expect(existsSync(join(work, 'tradelab-gpu', 'run.sh'))).toBe(true);

      const [name, ...others] = readdirSync(join(work, 'results'));
      expect(others).toEqual([]);
      expect(name).toMatch(/^\d{4}-\d{2}-\d{2}-\d{6}-no-nvidia-gpu$/);
      const dir = join(work, 'results', name ?? '');
      expect(readdirSync(dir).sort()).toEqual(['log.txt', 'results.jsonl', 'tables.txt']);
      const tables = readFileSync(join(dir, 'tables.txt'), 'utf8');
      expect(result.stdout).toBe(tables);

      // The bundle's Node, not this machine's.
      expect(tables).toContain(`(${join(work, 'tradelab-gpu', 'node', 'bin', 'node')})`);
      // Dawn loaded from the bundle, and the bundled Vulkan loader (or the system's) was found:
      // what is missing here is a driver, or there is one (a software one: lavapipe).
      const webgpu = /^webgpu\s+(yes|no)\s+(.*)$/m.exec(tables);
      expect(webgpu?.[0]).toBeDefined();
      if (webgpu?.[1] === 'no')
        expect(webgpu[2]).toMatch(/^installed, no adapter: libvulkan\.so\.1 is installed but/);
      expect(tables).toMatch(/^wasm\s+yes\s+WebAssembly/m);
      // bench gemm without XNNPACK, bench ppo-update without the stock kernels and without webgpu,
      // bench ppo on wasm; no PyTorch here, or it ran on the same shape.
      expect(tables).toMatch(/^FMA peak, \w+, register-only loop/m);
      expect(tables).not.toContain('XNNPACK (wasm)');
      expect(tables).toMatch(
        /^PPO update, wasm, XNNPACK with explicit transposes \(state 8, netDim 32, actions 2, batch 64\)/m,
      );
      expect(tables).not.toMatch(/^PPO update, .*(stock kernels|webgpu on )/m);
      expect(tables).toMatch(/^PPO training, nEnvs 2, netDim 16:/m);
      expect(tables).toMatch(/^state 8, netDim 32, actions 2, batch 64:$/m);
      expect(tables).toContain('webgpu ÷ PyTorch CUDA: no ratio');
      expect(tables).toMatch(
        /^4 chunks × 32 bars, 2×8, kernel 3, 8 features, checkpointing off:$/m,
      );

      const records = readFileSync(join(dir, 'results.jsonl'), 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { command: string; bench?: string; name: string });
      const commands = [...new Set(records.map((r) => r.command))];
      expect(commands.slice(0, 4)).toEqual([
        'tradelab backends',
        'tradelab bench gemm --repeat 1 --no-xnnpack --gpu never',
        'tradelab bench ppo-update --state 8 --net-dim 32 --actions 2 --batch 64 --updates 1 --repeat 1 --no-stock --webgpu never',
        'tradelab bench ppo --backend wasm --envs 2 --net-dim 16 --assets 2 --target-step 64 --batch-size 32 --repeat-times 1 --updates 1',
      ]);
      expect(records.filter((r) => r.command === 'tradelab backends').map((r) => r.name)).toEqual([
        'wasm',
        'gpu',
        'webgpu',
        'cpu',
      ]);
      expect(new Set(records.map((r) => r.bench))).toEqual(
        new Set([undefined, 'gemm', 'ppo-update', 'ppo', 'env', 'tcn']),
      );

      const log = readFileSync(join(dir, 'log.txt'), 'utf8');
      expect(log).toMatch(/^\$ tradelab bench ppo --backend wasm .*\n\(exit 0, \d+ s\)$/m);
      expect(log).not.toMatch(/\(exit [1-9]/);

      // A second run finds the bundle unpacked and leaves it be.
      const again = await run('sh', ['tradelab-gpu-bundle.run', '--unpack-only'], {
        cwd: work,
        env,
      });
      expect(again.stderr).not.toContain('unpacking');
      expect(again.stderr).toContain('unpacked in tradelab-gpu');
    },
    RUN_MS,
  );
});

describe("the GPU bundle's ratios", () => {
  it("sets the TCN engine against PyTorch CUDA on the same shape, and seed 003's own it/s beside it", async () => {
    const results = join(tempDir('tradelab-gpu-ratios-'), 'results.jsonl');
    const row = (name: string, rate: number): string =>
      JSON.stringify({ command: 'x', bench: 'tcn', name, rate, unit: 'timesteps/s', runs: [1] });
    writeFileSync(
      results,
      [
        row(
          "TCN train step, 200 chunks × 512 bars, checkpointing on (12×512, k 3, 4 features; gpu, tradelab's engine on NVIDIA H200)",
          2 * 200 * 512,
        ),
        row(
          'PyTorch 2.5.1 TCN train step on cuda, 200 chunks x 512 bars, checkpointing on (12x512, k 3, 4 features)',
          8 * 200 * 512,
        ),
        row(
          'PyTorch 2.5.1 TCN train step on cuda, 200 chunks x 512 bars, checkpointing off (12x512, k 3, 4 features)',
          9 * 200 * 512,
        ),
        JSON.stringify({
          command: 'x',
          bench: 'gemm',
          name: 'gpu engine f32 on NVIDIA H200, 4096×512×512 NN (reference; GPU timestamps)',
          rate: 30_000,
          unit: 'GFLOP/s',
          runs: [1],
          gpuGemm: { path: 'f32', precision: 'f32', verified: true },
        }),
        JSON.stringify({
          command: 'x',
          bench: 'gemm',
          name: 'gpu engine f16 storage, f32 accumulate on NVIDIA H200, 4096×512×512 NN (reference; GPU timestamps)',
          rate: 45_000,
          unit: 'GFLOP/s',
          runs: [1],
          gpuGemm: {
            path: 'f16-storage',
            precision: 'f16 storage, f32 accumulate',
            verified: true,
            speedupOverF32: 1.5,
            maxError: 2.7e-4,
          },
        }),
      ].join('\n') + '\n',
    );
    const { stdout } = await run(
      process.execPath,
      [join(REPO_ROOT, 'scripts', 'gpu-bundle', 'results.mjs'), 'ratios', results],
      { env },
    );
    const on = stdout.slice(
      stdout.indexOf('200 chunks × 512 bars, 12×512, kernel 3, 4 features, checkpointing on:'),
    );
    // The checkpointed engine against the checkpointed PyTorch, not the faster unchecked one.
    expect(on).toMatch(
      /tradelab's GPU engine ÷ PyTorch CUDA: 204,800 ÷ 819,200 timesteps\/s = 0\.25×/,
    );
    expect(on).toContain(
      "seed 003 on an H100 (bf16 autocast, checkpointed): 10 it/s; here tradelab's engine 2.00 it/s, PyTorch CUDA (f32) 8.00 it/s",
    );
    expect(stdout).toContain(
      '  4096×512×512 NN: f32 30,000; f16 storage, f32 accumulate 45,000 (1.50×, error 2.7e-4)',
    );
    expect(stdout).toMatch(
      /checkpointing off:\n {2}tradelab's GPU engine ÷ PyTorch CUDA: no ratio \(no tradelab row\)/,
    );
  });
});
