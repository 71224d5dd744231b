import { cpSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli, runCliInProcess, runCliSignalled } from './support/run-cli.js';
import { syntheticProject, tinyRunFlags } from './support/train-fixture.js';

/*
 * `tradelab train ppo --resume` continues a run exactly: a run stopped in the middle — stopped
 * with Ctrl-C, resumed, then killed with SIGKILL — and resumed from its last checkpoint ends with
 * the weights.bin of a run that never stopped, byte for byte, and the same test figures. That test
 * runs three training processes, hence its longer time limit on a busy machine. The kill comes
 * after a checkpoint past the first updates (the state of Adam's bias correction after dozens of
 * steps is what a resume used to get wrong), and the last resume leaves out --threads, which must
 * not silently switch to this machine's default.
 */

let dir: string;
const UPDATES = 10;
const RUN = [
  ...tinyRunFlags({ 'target-step': '128', 'batch-size': '64' }),
  '--steps',
  String(128 * UPDATES),
  '--threads',
  '1',
  '--json',
];

beforeAll(async () => {
  dir = await syntheticProject('tradelab-resume-', 0.2);
  const straight = await runCli(['train', 'ppo', ...RUN, '--out', 'runs/straight'], { cwd: dir });
  expect(straight.code, straight.stderr).toBe(0);
}, 60_000);

const read = (path: string): string => readFileSync(join(dir, path), 'utf8');
const json = (path: string): Record<string, unknown> =>
  JSON.parse(read(path)) as Record<string, unknown>;

/**
 * Starts `train ppo` with `args` (a new run's flags, or a resume's) and sends `signal` once the
 * row of update `after` is out: by then the checkpoint of update after − 1 is on disk (every
 * second update is checkpointed).
 */
function stoppedRun(
  args: readonly string[],
  after: number,
  signal: NodeJS.Signals,
): ReturnType<typeof runCliSignalled> {
  const flags = args.includes('--resume') ? args : [...RUN, ...args];
  return runCliSignalled(['train', 'ppo', ...flags], {
    cwd: dir,
    signal,
    when: (stdout) => stdout.includes(`"type":"update","update":${after},`),
  });
}

/** The update the run's checkpoint was written after. */
function checkpointUpdate(run: string): number {
  const model = json(`${run}/checkpoints/latest/model.json`) as {
    training: { updatesDone: number };
  };
  return model.training.updatesDone;
}

/** Asserts `run` finished with the straight run's weights, updates and test figures. */
function expectSameAsStraight(run: string): void {
  expect(json(`${run}/manifest.json`).status).toBe('finished');
  expect(readFileSync(join(dir, `${run}/model/weights.bin`))).toEqual(
    readFileSync(join(dir, 'runs/straight/model/weights.bin')),
  );
  expect(json(`${run}/manifest.json`).evaluation).toEqual(
    json('runs/straight/manifest.json').evaluation,
  );
  const updates = jsonLines(read(`${run}/updates.jsonl`)).map((u) => u.update);
  expect(updates).toEqual(Array.from({ length: UPDATES }, (_, i) => i + 1));
}

describe('tradelab train ppo --resume', () => {
  it('continues a run stopped with Ctrl-C, then killed with SIGKILL after a mid-run checkpoint, to exactly the weights of one that never stopped', async () => {
    // One run through both stops, so that each resume carries on the other's state: the final
    // weights match only if both did.
    const stopped = await stoppedRun(['--out', 'runs/stopped'], 3, 'SIGINT');
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(json('runs/stopped/manifest.json').status).toBe('interrupted');
    const first = checkpointUpdate('runs/stopped');
    expect(first).toBeGreaterThanOrEqual(2);
    expect(first).toBeLessThanOrEqual(4);
    // Resumed by the very command that started it with --resume added (the run's own flags are no
    // change), and killed after update 7: the checkpoint of update 6 is one this process wrote,
    // from the state it resumed.
    const killed = await stoppedRun([...RUN, '--out', 'runs/stopped', '--resume'], 7, 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const k = checkpointUpdate('runs/stopped');
    expect(k).toBeGreaterThanOrEqual(6);
    expect(k).toBeLessThan(UPDATES);
    expect(json('runs/stopped/manifest.json').status).toBe('running');
    // No --threads: the run's 1 thread, not this machine's default.
    const resumed = await runCli(['train', 'ppo', '--out', 'runs/stopped', '--resume', '--json'], {
      cwd: dir,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expectSameAsStraight('runs/stopped');
    expect(resumed.stderr).toMatch(/the run's --threads 1/);
    expect(json('runs/stopped/manifest.json').backend).toEqual(
      json('runs/straight/manifest.json').backend,
    );
  }, 90_000);

  it('resumes from the complete checkpoint a kill between its two renames left beside latest', async () => {
    // savePpoModel replaces checkpoints/latest by moving it aside and the new one in; a kill
    // between the two leaves no latest, only latest.old-… and latest.tmp-… (complete: model.json
    // is written last). The state the kill leaves, made by hand: the kill cannot be timed there.
    cpSync(join(dir, 'runs/straight'), join(dir, 'runs/swapped'), { recursive: true });
    const checkpoints = join(dir, 'runs/swapped/checkpoints');
    renameSync(join(checkpoints, 'latest'), join(checkpoints, 'latest.tmp-4242-abc'));
    const resumed = await runCli(
      [
        'train',
        'ppo',
        '--out',
        'runs/swapped',
        '--resume',
        '--steps',
        String(128 * (UPDATES + 1)),
        '--json',
      ],
      { cwd: dir },
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    // Only the one new update ran: the run went on from update 10, not from the start.
    const rows = jsonLines(resumed.stdout).filter((row) => row.type === 'update');
    expect(rows.map((row) => row.update)).toEqual([UPDATES + 1]);
    expect(checkpointUpdate('runs/swapped')).toBe(UPDATES + 1);
  });

  it('refuses a resume with other --threads than the run had, saying what to do', async () => {
    // Refused before a backend starts, so this one runs in the test process.
    const other = await runCliInProcess(
      ['train', 'ppo', '--out', 'runs/straight', '--resume', '--threads', '2'],
      { cwd: dir },
    );
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/--threads 2 differs from the run's 1/);
    expect(other.stderr).toMatch(/hint: .*leave --threads out/);
  });
});
