import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectGpus, type Detection, type ToolReport } from './detect-gpus.js';
import type { DetectionTool } from './detected-gpu.js';
import { NVIDIA_SMI_ARGS } from './parse-nvidia-smi.js';
import { utility } from '../../../test/support/assertions.js';
import { tempDir } from '../../../test/support/temp-dir.js';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/detect/', import.meta.url));
const MIB = 2 ** 20;

const BASH = utility('bash');
const CAT = utility('cat');
const SLEEP = utility('sleep');

function fixture(name: string): string {
  return join(FIXTURES, name);
}

function drmFixture(name: string): string {
  return join(FIXTURES, name, 'class', 'drm');
}

function tool(detection: Detection, name: DetectionTool): ToolReport {
  const report = detection.tools.find((t) => t.tool === name);
  if (report === undefined) throw new Error(`no report for ${name}`);
  return report;
}

function statuses(detection: Detection): Record<string, string> {
  return Object.fromEntries(detection.tools.map((t) => [t.tool, t.status]));
}

describe('detectGpus with fake tools', () => {
  let root: string;
  let bin: string;
  let emptyDrm: string;
  let env: Record<string, string>;

  beforeEach(() => {
    root = tempDir('tradelab-detect-');
    bin = join(root, 'bin');
    emptyDrm = join(root, 'drm');
    mkdirSync(bin);
    mkdirSync(emptyDrm);
    // Only the fake tools are on PATH: real ones installed on this machine must not answer.
    env = { PATH: bin };
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  /** Writes an executable bash script named `name` into the fake bin directory. */
  function fake(name: string, body: string): void {
    writeFileSync(join(bin, name), `#!${BASH}\n${body}\n`, { mode: 0o755 });
  }

  /** A fake tool that prints a fixture and exits with `code`. */
  function fakeCat(name: string, fixtureName: string, code = 0): void {
    fake(name, `${CAT} '${fixture(fixtureName)}'\nexit ${code}`);
  }

  it('reports every tool missing and no GPUs on a bare machine', async () => {
    const detection = await detectGpus({ env, drmRoot: emptyDrm });
    expect(detection.gpus).toEqual([]);
    expect(detection.tools.map((t) => t.tool)).toEqual([
      'nvidia-smi',
      'rocm-smi',
      'amd-smi',
      'sysfs',
    ]);
    expect(statuses(detection)).toEqual({
      'nvidia-smi': 'missing',
      'rocm-smi': 'missing',
      'amd-smi': 'missing',
      sysfs: 'none',
    });
    expect(tool(detection, 'nvidia-smi').detail).toBe('not installed (not on PATH)');
    expect(tool(detection, 'sysfs')).toMatchObject({
      command: `${emptyDrm}/card*/device/mem_info_vram_total`,
      detail: 'no amdgpu card with VRAM listed',
    });
  });

  it('finds NVIDIA GPUs through nvidia-smi, which it runs with our query', async () => {
    const argsFile = join(root, 'args');
    fake(
      'nvidia-smi',
      `printf '%s\\n' "$@" > '${argsFile}'\n${CAT} '${fixture('nvidia-smi-h100nvl-multi.txt')}'`,
    );
    const detection = await detectGpus({ env, drmRoot: emptyDrm });
    expect(readFileSync(argsFile, 'utf8')).toBe(`${NVIDIA_SMI_ARGS.join('\n')}\n`);
    const nvidia = tool(detection, 'nvidia-smi');
    expect(nvidia).toMatchObject({
      status: 'found',
      command: `nvidia-smi ${NVIDIA_SMI_ARGS.join(' ')}`,
      detail: '2× NVIDIA H100 NVL',
      warnings: [],
    });
    expect(nvidia.gpus).toHaveLength(2);
    expect(detection.gpus.map((g) => [g.index, g.name, g.memoryTotalBytes])).toEqual([
      [0, 'NVIDIA H100 NVL', 95830 * MIB],
      [1, 'NVIDIA H100 NVL', 95830 * MIB],
    ]);
  });

  it('reports the driver-failed text (exit 9) as failed, quoting it', async () => {
    fakeCat('nvidia-smi', 'nvidia-smi-driver-failed.txt', 9);
    const detection = await detectGpus({ env, drmRoot: emptyDrm });
    expect(detection.gpus).toEqual([]);
    expect(tool(detection, 'nvidia-smi')).toMatchObject({
      status: 'failed',
      detail:
        "exit 9: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.",
      gpus: [],
    });
  });

  it('reports an NVML error (exit 255) as failed', async () => {
    fakeCat('nvidia-smi', 'nvidia-smi-nvml-unknown-error.txt', 255);
    const detection = await detectGpus({ env, drmRoot: emptyDrm });
    expect(tool(detection, 'nvidia-smi')).toMatchObject({
      status: 'failed',
      detail: 'exit 255: Failed to initialize NVML: Unknown Error',
    });
  });

  it('prefers what the tool said on stderr in the detail', async () => {
    fake('nvidia-smi', "echo 'on stdout'\necho 'on stderr' >&2\nexit 18");
    const detection = await detectGpus({ env, drmRoot: emptyDrm });
    expect(tool(detection, 'nvidia-smi').detail).toBe('exit 18: on stderr');
  });

  it('reports a tool killed by a signal', async () => {
    fake('nvidia-smi', 'kill -KILL $$');
    const detection = await detectGpus({ env, drmRoot: emptyDrm });
    expect(tool(detection, 'nvidia-smi')).toMatchObject({
      status: 'failed',
      detail: 'killed by SIGKILL: no output',
    });
  });

  it('reports "No devices were found" as no GPU, not a failure', async () => {
    fakeCat('nvidia-smi', 'nvidia-smi-no-devices.txt', 6);
    const detection = await detectGpus({ env, drmRoot: emptyDrm });
    expect(tool(detection, 'nvidia-smi')).toMatchObject({
      status: 'none',
      detail: 'exit 6: No devices were found',
    });
  });

  it('reports "No supported GPUs were found" as no GPU', async () => {
    fakeCat('nvidia-smi', 'nvidia-smi-no-supported-gpus.txt', 255);
    const detection = await detectGpus({ env, drmRoot: emptyDrm });
    expect(tool(detection, 'nvidia-smi').status).toBe('none');
  });

  it('reports empty output with exit 0 as no GPU', async () => {
    fake('nvidia-smi', 'exit 0');
    const detection = await detectGpus({ env, drmRoot: emptyDrm });
    expect(tool(detection, 'nvidia-smi')).toMatchObject({ status: 'none', detail: 'no GPU' });
  });

  it('reports output it cannot read as garbage', async () => {
    fake('nvidia-smi', "echo 'Segmentation fault (core dumped)'\nexit 0");
    const detection = await detectGpus({ env, drmRoot: emptyDrm });
    expect(detection.gpus).toEqual([]);
    expect(tool(detection, 'nvidia-smi')).toMatchObject({
      status: 'garbage',
      detail: 'unreadable output: no GPU records in output: Segmentation fault (core dumped)',
      gpus: [],
    });
  });

  it('reports the output of another query (a wrapper on PATH) as garbage', async () => {
    fakeCat('nvidia-smi', 'nvidia-smi-titanx-8gpu.txt');
    const detection = await detectGpus({ env, drmRoot: emptyDrm });
    expect(detection.gpus).toEqual([]);
    expect(tool(detection, 'nvidia-smi').status).toBe('garbage');
  });

  it('keeps the good cards and their warnings when one line is malformed', async () => {
    fake(
      'nvidia-smi',
      [
        "echo '0, GPU-a, NVIDIA GeForce RTX 4090, 24564, 2, 0, 210, [N/A]'",
        "echo 'Unable to determine the device handle for GPU0000:17:00.0: Unknown Error'",
      ].join('\n'),
    );
    const detection = await detectGpus({ env, drmRoot: emptyDrm });
    const nvidia = tool(detection, 'nvidia-smi');
    expect(nvidia.status).toBe('found');
    expect(nvidia.warnings).toHaveLength(2);
    expect(detection.gpus.map((g) => g.name)).toEqual(['NVIDIA GeForce RTX 4090']);
  });

  it('kills a tool that hangs and reports a timeout', async () => {
    fake('nvidia-smi', `exec ${SLEEP} 30`);
    const detection = await detectGpus({ env, drmRoot: emptyDrm, timeoutMs: 300 });
    expect(detection.gpus).toEqual([]);
    const nvidia = tool(detection, 'nvidia-smi');
    expect(nvidia.status).toBe('timeout');
    expect(nvidia.detail).toMatch(/^no answer in \d+ ms; killed$/);
  });

  it('times out a tool whose child keeps it waiting', async () => {
    fake('rocm-smi', `${SLEEP} 30 &\nwait`);
    const detection = await detectGpus({ env, drmRoot: emptyDrm, timeoutMs: 300 });
    expect(tool(detection, 'rocm-smi').status).toBe('timeout');
  });

  it('reads a tool that printed and exited while a grandchild holds its output open', async () => {
    fake('amd-smi', `${CAT} '${fixture('amd-smi-static-list.json')}'\n(${SLEEP} 30) &\nexit 0`);
    const detection = await detectGpus({ env, drmRoot: emptyDrm, timeoutMs: 5000 });
    expect(tool(detection, 'amd-smi').status).toBe('found');
    expect(detection.gpus.map((g) => g.name)).toEqual(['MI300X-O']);
  });

  it('reports rocm-smi "Driver not initialized" (stderr, exit 0) as no GPU', async () => {
    fake('rocm-smi', `${CAT} '${fixture('rocm-smi-driver-not-initialized.txt')}' >&2\nexit 0`);
    const detection = await detectGpus({ env, drmRoot: emptyDrm });
    expect(tool(detection, 'rocm-smi')).toMatchObject({
      status: 'none',
      detail: 'cat: /sys/module/amdgpu/initstate: No such file or directory',
    });
  });

  it('reports rocm-smi "No JSON data to report" as no GPU', async () => {
    fake('rocm-smi', `${CAT} '${fixture('rocm-smi-no-json-data.txt')}' >&2`);
    const detection = await detectGpus({ env, drmRoot: emptyDrm });
    expect(tool(detection, 'rocm-smi')).toMatchObject({
      status: 'none',
      detail: 'WARNING: No JSON data to report',
    });
  });

  it('reports JSON without product names as garbage, with the first warning', async () => {
    fakeCat('rocm-smi', 'rocm-smi-raw-oneline-legacy.json');
    const detection = await detectGpus({ env, drmRoot: emptyDrm });
    expect(tool(detection, 'rocm-smi')).toMatchObject({
      status: 'garbage',
      detail: 'card0: no product name (rocm-smi printed no "Card series")',
    });
  });

  it('reports an amd-smi group error as garbage', async () => {
    fakeCat('amd-smi', 'amd-smi-group-error-rocm7.txt');
    const detection = await detectGpus({ env, drmRoot: emptyDrm });
    expect(tool(detection, 'amd-smi').status).toBe('garbage');
    expect(tool(detection, 'amd-smi').detail).toMatch(/^unreadable output: no JSON in output: /);
  });

  it('takes AMD cards from rocm-smi first; amd-smi and sysfs are superseded', async () => {
    fakeCat('rocm-smi', 'rocm-smi-7900xt.json');
    fakeCat('amd-smi', 'amd-smi-static-gpu-data.json');
    const detection = await detectGpus({ env, drmRoot: drmFixture('sysfs-rx7900xt') });
    expect(statuses(detection)).toEqual({
      'nvidia-smi': 'missing',
      'rocm-smi': 'found',
      'amd-smi': 'superseded',
      sysfs: 'superseded',
    });
    expect(detection.gpus).toEqual(tool(detection, 'rocm-smi').gpus);
    expect(detection.gpus.map((g) => [g.tool, g.name, g.memoryUsedBytes])).toEqual([
      ['rocm-smi', 'Radeon RX 7900 XT', 27_856_896],
    ]);
    expect(tool(detection, 'rocm-smi').detail).toBe('Radeon RX 7900 XT');
    expect(tool(detection, 'amd-smi').detail).toBe(
      'AMD Radeon RX 7800 XT (same cards as rocm-smi, which reports more)',
    );
    expect(tool(detection, 'sysfs').detail).toBe(
      'AMD Radeon RX 7900 XT/7900 XTX/7900 GRE (Navi 31) (same cards as rocm-smi, which reports more)',
    );
    // A superseded tool still shows what it saw.
    expect(tool(detection, 'amd-smi').gpus).toHaveLength(1);
  });

  it('takes AMD cards from amd-smi when rocm-smi fails', async () => {
    fake('rocm-smi', 'exit 1');
    fakeCat('amd-smi', 'amd-smi-static-warning.txt');
    const detection = await detectGpus({ env, drmRoot: drmFixture('sysfs-amdgpu-8gb') });
    expect(statuses(detection)).toMatchObject({
      'rocm-smi': 'failed',
      'amd-smi': 'found',
      sysfs: 'superseded',
    });
    expect(detection.gpus.map((g) => [g.tool, g.name])).toEqual([
      ['amd-smi', 'Granite Ridge [Radeon Graphics]'],
    ]);
    expect(tool(detection, 'amd-smi').warnings).toEqual(['GPU 0: vram.size not reported']);
  });

  it('falls back to sysfs when neither AMD tool is installed', async () => {
    const detection = await detectGpus({ env, drmRoot: drmFixture('sysfs-rx6800-raphael') });
    expect(tool(detection, 'sysfs')).toMatchObject({
      status: 'found',
      detail: 'AMD GPU 0x73bf, AMD GPU 0x164e',
    });
    expect(detection.gpus.map((g) => [g.tool, g.index, g.memoryTotalBytes])).toEqual([
      ['sysfs', 0, 17_163_091_968],
      ['sysfs', 1, 67_108_864],
    ]);
  });

  it('lists NVIDIA cards before AMD ones on a mixed machine', async () => {
    fakeCat('nvidia-smi', 'nvidia-smi-4090-single.txt');
    fakeCat('rocm-smi', 'rocm-smi-7900xt-oneline.json');
    const detection = await detectGpus({ env, drmRoot: emptyDrm });
    expect(detection.gpus.map((g) => [g.vendor, g.tool, g.name])).toEqual([
      ['nvidia', 'nvidia-smi', 'NVIDIA GeForce RTX 4090'],
      ['amd', 'rocm-smi', 'Radeon RX 7900 XT'],
    ]);
  });

  it('reads sysfs from TRADELAB_SYSFS_DRM when no drmRoot is given', async () => {
    const detection = await detectGpus({
      env: { ...env, TRADELAB_SYSFS_DRM: drmFixture('sysfs-strix-halo-uma') },
    });
    expect(tool(detection, 'sysfs').status).toBe('found');
    expect(detection.gpus.map((g) => g.memoryTotalBytes)).toEqual([103_079_215_104]);
  });

  it('reports sysfs as failed when the directory cannot be read', async () => {
    const notADir = join(root, 'file');
    writeFileSync(notADir, '');
    const detection = await detectGpus({ env, drmRoot: notADir });
    expect(tool(detection, 'sysfs')).toMatchObject({ status: 'failed', command: notADir });
    expect(tool(detection, 'sysfs').detail).toMatch(/^cannot read: .*ENOTDIR/);
  });
});
