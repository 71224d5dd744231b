import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_PROFILES } from '../src/profiles/index.js';
import {
  fakeTools,
  jsonLines,
  printsFixture,
  runCli,
  runCliInProcess,
  tempDir,
} from './support/run-cli.js';

/*
 * `tradelab profiles …` and `quickstart`. One test per exit code and the detection of fake tools
 * that fail and hang run real processes; the variants of what is printed, a detection that finds
 * its GPU included, run in this process (runCliInProcess), through the same entry function.
 */

describe('tradelab profiles list', () => {
  it('lists every built-in profile in a table', async () => {
    const result = await runCli(['profiles', 'list']);
    expect(result.code).toBe(0);
    for (const name of Object.keys(BUILTIN_PROFILES))
      expect(result.stdout).toMatch(new RegExp(`^${name}\\s`, 'm'));
    expect(result.stdout).toMatch(
      /^rtx_4090\s+NVIDIA RTX 4090\s+24\s+1008\s+82\.6\s+165\.2\s+0\.00/m,
    );
  });

  it('prints one JSON object per profile with --json', async () => {
    const result = await runCliInProcess(['profiles', 'list', '--json']);
    const records = jsonLines(result.stdout);
    expect(records).toHaveLength(Object.keys(BUILTIN_PROFILES).length);
    expect(records.find((r) => r.name === 'h100')).toMatchObject({
      vramGb: 80,
      hourlyUsd: 2.5,
      origin: 'builtin',
    });
  });

  it('marks custom profiles from the config file', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'tradelab.config.yaml'),
      'profiles:\n  my_4090:\n    extends: rtx_4090\n    displayName: My 4090\n    workloads:\n      drl:\n        maxWorkers: 3\n',
    );
    const result = await runCliInProcess(['profiles', 'list'], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^my_4090\s+My 4090\s.*custom \(extends rtx_4090\)$/m);
  });
});

describe('tradelab profiles show', () => {
  it('shows every field of a profile found by alias', async () => {
    const result = await runCliInProcess(['profiles', 'show', 'RTX_4090']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('display name');
    expect(result.stdout).toContain('NVIDIA RTX 4090');
    expect(result.stdout).toContain('1008 GB/s');
    expect(result.stdout).toContain('GPU profile guide (PyTorch original)');
  });

  it('fails on an unknown name with the known names and the closest one, exit 2', async () => {
    const result = await runCli(['profiles', 'show', 'rtx4080ti']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown profile "rtx4080ti"; known: rtx_3070');
    expect(result.stderr).toMatch(/did you mean rtx_4080\?/);
  });

  it('fails on an ambiguous alias with the choices', async () => {
    const result = await runCliInProcess(['profiles', 'show', 'a100']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'profile "a100" is ambiguous: it could be a100_40gb or a100_80gb',
    );
  });

  it('shows the profile in use without NAME, as profiles plan chooses it (GPU_PROFILE)', async () => {
    const result = await runCliInProcess(['profiles', 'show'], { env: { GPU_PROFILE: '4090' } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^Profile in use: rtx_4090, named by GPU_PROFILE as "4090"\n/);
    expect(result.stdout).toContain('NVIDIA RTX 4090');
    const json = await runCliInProcess(['profiles', 'show', '--json', '--profile', 'h100'], {
      env: { GPU_PROFILE: '4090' },
    });
    expect(json.code, json.stderr).toBe(0);
    expect(jsonLines(json.stdout)[0]).toMatchObject({
      name: 'h100',
      profileSource: 'flag',
      profileOrigin: '--profile',
    });
  });

  it('shows the detected profile without NAME, and cpu when nothing is found', async () => {
    const tools = fakeTools({ 'nvidia-smi': printsFixture('nvidia-smi-h100-single.txt') });
    const detected = await runCliInProcess(['profiles', 'show'], { tools });
    expect(detected.code, detected.stderr).toBe(0);
    expect(detected.stdout).toMatch(
      /^Profile in use: h100, nvidia-smi found NVIDIA H100 80GB HBM3/,
    );
    const none = await runCliInProcess(['profiles', 'show', '--no-detect']);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toMatch(
      /^Profile in use: cpu, detection is off and no profile was named\n/,
    );
  });
});

describe('tradelab profiles detect', () => {
  it('detects an H100 through a fake nvidia-smi', async () => {
    const tools = fakeTools({ 'nvidia-smi': printsFixture('nvidia-smi-h100-single.txt') });
    // In this process: detection through real tool processes runs in a real CLI process below.
    const result = await runCliInProcess(['profiles', 'detect'], { tools });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/nvidia-smi\s+found\s+\d+ ms\s+NVIDIA H100 80GB HBM3/);
    expect(result.stdout).toMatch(/rocm-smi\s+missing/);
    expect(result.stdout).toMatch(
      /0\s+NVIDIA H100 80GB HBM3\s+79\.65 GiB\s+79\.65 GiB\s+nvidia-smi\s+h100/,
    );
    expect(result.stdout).toContain('Profile: h100 (NVIDIA H100 80GB), detected');
  });

  it('lists several GPUs each with its profile, in JSON', async () => {
    const tools = fakeTools({ 'nvidia-smi': printsFixture('nvidia-smi-h100nvl-multi.txt') });
    const result = await runCliInProcess(['profiles', 'detect', '--json'], { tools });
    const records = jsonLines(result.stdout);
    const gpus = records.filter((r) => r.type === 'gpu');
    expect(gpus.map((g) => [g.index, g.profile])).toEqual([
      [0, 'h100_94gb'],
      [1, 'h100_94gb'],
    ]);
    expect(records.find((r) => r.type === 'choice')).toMatchObject({
      profile: 'h100_94gb',
      source: 'detected',
    });
  });

  it('derives a profile for an AMD card it has none for (rocm-smi)', async () => {
    const tools = fakeTools({ 'rocm-smi': printsFixture('rocm-smi-7900xt.json') });
    const result = await runCliInProcess(['profiles', 'detect', '--json'], { tools });
    const choice = jsonLines(result.stdout).find((r) => r.type === 'choice');
    expect(choice?.profile).toBe('derived_radeon_rx_7900_xt');
    expect(String(choice?.reason)).toContain('derived from');
  });

  it('reports a driver failure and a hanging tool, then falls back to cpu', async () => {
    const tools = fakeTools({
      'nvidia-smi': printsFixture('nvidia-smi-driver-failed.txt', 9),
      'amd-smi': 'sleep 30',
      'rocm-smi': 'echo "this is not json"',
    });
    const result = await runCli(['profiles', 'detect', '--detect-timeout-ms', '300'], { tools });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/nvidia-smi\s+failed\s+\d+ ms\s+exit 9: NVIDIA-SMI has failed/);
    expect(result.stdout).toMatch(/amd-smi\s+timeout/);
    expect(result.stdout).toMatch(/rocm-smi\s+garbage/);
    expect(result.stdout).toContain('Profile: cpu (CPU only), from default');
  });

  it('says when the chosen profile is not the detected card', async () => {
    const tools = fakeTools({ 'nvidia-smi': printsFixture('nvidia-smi-4090-single.txt') });
    const result = await runCliInProcess(['profiles', 'detect'], {
      tools,
      env: { GPU_PROFILE: 'h100' },
    });
    expect(result.stdout).toContain(
      'Profile: h100 (NVIDIA H100 80GB), from env: named by GPU_PROFILE',
    );
    expect(result.stderr).toContain("is not this machine's NVIDIA GeForce RTX 4090");
  });
});

describe('GPU_PROFILE and TRADELAB_PROFILE both set', () => {
  it('uses GPU_PROFILE, and says that TRADELAB_PROFILE was ignored', async () => {
    const env = { GPU_PROFILE: 'l40s', TRADELAB_PROFILE: 'h200' };
    const show = await runCliInProcess(['profiles', 'show'], { env });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(
      /^Profile in use: l40s, named by GPU_PROFILE \(TRADELAB_PROFILE=h200 is ignored: GPU_PROFILE comes first\)\n/,
    );
    const plan = await runCliInProcess(['profiles', 'plan', '--no-detect'], { env });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(
      /GPU: using profile 'NVIDIA L40S' \(48 GB VRAM\) from GPU_PROFILE \(TRADELAB_PROFILE=h200 ignored\); workers: /,
    );
    const json = await runCliInProcess(['profiles', 'show', '--json'], { env });
    expect(jsonLines(json.stdout)[0]).toMatchObject({
      profileOrigin: 'GPU_PROFILE',
      profileIgnored: ['TRADELAB_PROFILE=h200'],
    });
  });
});

describe('tradelab profiles plan', () => {
  it("logs the seeds' GPU line and the breakdown for a profile from GPU_PROFILE", async () => {
    const result = await runCliInProcess(
      ['profiles', 'plan', '--net-dim', '2048', '--batch-size', '32768', '--no-detect'],
      {
        env: { GPU_PROFILE: 'rtx_3070', TRADELAB_BACKEND: 'webgpu' },
      },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "GPU: using profile 'NVIDIA RTX 3070' (8 GB VRAM) from GPU_PROFILE; workers: 1",
    );
    expect(result.stdout).toMatch(/weights\s+65\.4 MiB\s+17,143,829 params/);
    expect(result.stdout).toContain('usable VRAM: 6.80 GiB = 8.00 GiB VRAM × 0.85');
  });

  it("plans backend auto on a GPU profile for tradelab's engine, PPO's update on the card, as training runs it", async () => {
    const result = await runCliInProcess(['profiles', 'plan', '--no-detect', '--json'], {
      env: { GPU_PROFILE: 'rtx_3070' },
    });
    expect(result.code).toBe(0);
    const plan = jsonLines(result.stdout)[0];
    expect(plan).toMatchObject({ type: 'plan', backend: 'gpu', memoryKind: 'gpu' });
  });

  it('caps usable memory by free VRAM that detection reports', async () => {
    const tools = fakeTools({
      'nvidia-smi': 'echo "0, GPU-1, NVIDIA GeForce RTX 4090, 24564, 20000, 90, 2520, 300.00"',
    });
    const result = await runCliInProcess(['profiles', 'plan', '--json'], {
      tools,
      env: { TRADELAB_BACKEND: 'webgpu' },
    });
    const plan = jsonLines(result.stdout)[0];
    expect(plan).toMatchObject({
      type: 'plan',
      profile: 'rtx_4090',
      profileSource: 'detected',
      memoryFreeBytes: 4564 * 2 ** 20,
    });
    expect(plan?.usable).toMatchObject({ bytes: 4564 * 2 ** 20 });
  });

  it('exits 1 and says why when the requested workers do not fit', async () => {
    const result = await runCli([
      'profiles',
      'plan',
      '--profile',
      'rx_7900_gre',
      '--net-dim',
      '4096',
      '--batch-size',
      '131072',
      '--workers',
      '10',
      '--no-detect',
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Does not fit: one worker needs');
    expect(result.stderr).toContain('error [PLAN_DOES_NOT_FIT]: 10 workers');
  });

  it('plans against RAM with the wasm backend, even on a GPU profile', async () => {
    const result = await runCliInProcess([
      'profiles',
      'plan',
      '--profile',
      'h100',
      '--backend',
      'wasm',
      '--json',
      '--no-detect',
    ]);
    expect(jsonLines(result.stdout)[0]).toMatchObject({ backend: 'wasm', memoryKind: 'host' });
  });
});

describe('tradelab quickstart', () => {
  it('detects, picks a profile and prints a plan', async () => {
    const tools = fakeTools({ 'nvidia-smi': printsFixture('nvidia-smi-4090-single.txt') });
    const result = await runCli(['quickstart', '--trials', '1', '--steps', '1024'], { tools });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "GPU: using profile 'NVIDIA RTX 4090' (24 GB VRAM) detected by nvidia-smi; workers:",
    );
    expect(result.stdout).toContain('per worker');
  });

  it('runs a small campaign of the five presets on the cpu profile and prints its report', async () => {
    const result = await runCli(['quickstart', '--trials', '1', '--steps', '1024']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("GPU: using profile 'CPU only' (no GPU;");
    // The plan is the plan of what it trains: 4 assets, netDim 64, its batch and envs.
    expect(result.stdout).toContain('batch 256, 8 envs, targetStep 512');
    expect(result.stdout).toMatch(/params \(actor\+critic, 2×64 hidden, obs \d+, act 4\)/);
    expect(result.stdout).toContain('Market: 4 synthetic assets, 6,000 1h bars');
    // The campaign: five studies, the fine-tuning ones after their sources, every trial ended.
    expect(result.stdout).toMatch(
      /^Finished 5 trials in [\d.]+ s: 5 complete, 0 pruned, 0 failed, 0 lost\.$/m,
    );
    for (const study of [
      'ensemble_balanced',
      'ensemble_aggressive',
      'ensemble_conservative',
      'ft_small',
      'ft_large',
    ])
      expect(result.stdout).toMatch(
        new RegExp(
          `^${study} +1/1 +1 +0 +0 +[\\d.]+ +-?[\\d.]+ \\(#0\\) +-?[\\d.]+ +-?[\\d.]+$`,
          'm',
        ),
      );
    expect(result.stdout).toMatch(/^TOTAL +5\/5 +5 /m);
    expect(result.stdout).toContain('Diagnosis:');
    expect(result.stdout).toMatch(/^Report: .*\.tradelab\/quickstart\/report\.html$/m);
    // It keeps to its own directory: the project's data store and studies stay empty.
    const list = await runCli(['data', 'list', '--json']);
    expect(list.stdout.trim()).toBe('');
  });
});
