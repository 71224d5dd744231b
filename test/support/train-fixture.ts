import { expect } from 'vitest';
import { runCliInProcess, tempDir } from './run-cli.js';

/**
 * A project directory holding two synthetic symbols, SYN0 and SYN1 at 1h (1,500 bars, seed 3),
 * made by `tradelab data synth` in this process (setup: the tests' subject is what comes after);
 * `signal` plants a momentum signal (as `--signal`).
 */
export async function syntheticProject(prefix: string, signal?: number): Promise<string> {
  const dir = tempDir(prefix);
  const made = await runCliInProcess(
    [
      'data',
      'synth',
      '--symbols',
      '2',
      '--bars',
      '1500',
      ...(signal === undefined ? [] : ['--signal', String(signal)]),
      '--seed',
      '3',
    ],
    { cwd: dir },
  );
  expect(made.code, made.stderr).toBe(0);
  return dir;
}

/** The `train ppo` flags of a run of seconds on that project: a tiny network, few steps. */
const TINY_RUN: Record<string, string> = {
  data: 'SYN0,SYN1:1h',
  'net-dim': '16',
  envs: '4',
  'target-step': '256',
  'batch-size': '128',
  'repeat-times': '2',
  'episode-length': '64',
  'checkpoint-every': '2',
  seed: '5',
};

/** {@link TINY_RUN}'s flags with `changes` applied (a value of undefined leaves the flag out). */
export function tinyRunFlags(changes: Record<string, string | undefined> = {}): string[] {
  return Object.entries({ ...TINY_RUN, ...changes }).flatMap(([flag, value]) =>
    value === undefined ? [] : [`--${flag}`, value],
  );
}
