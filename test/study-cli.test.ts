import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, copyFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { optimize, Study } from '../src/tune/index.js';
import { freshPostgresDatabase, TEST_POSTGRES_URL } from './support/postgres-database.js';
import { jsonLines, runCli, type CliResult } from './support/run-cli.js';
import {
  cli,
  cliInProcess,
  createStudy,
  environment,
  OBJECTIVES,
  project,
  SLOW_QUADRATIC,
  storageOf,
  trialsOf,
} from './support/study-project.js';

/*
 * `tradelab study …` end to end: the built CLI as real processes, its trial workers as real child
 * processes, on real SQLite files in temporary project directories. Each command runs as a process
 * at least once (`study list`, `show` and `trials` in the read-only test, as another user under
 * root); the variants of a message and second views of a study run in this process
 * (cliInProcess), and a study that is only the setup of a test is created through the library
 * (createStudy). Stopping and killing a run: study-run-stop-cli.test.ts.
 */

/** Parses RFC 4180 CSV (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n') {
      rows.push([...row, field]);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length > 0) rows.push([...row, field]);
  return rows;
}

/** A trial without what differs between storages (ids). */
function portable(trial: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, studyId: _studyId, ...rest } = trial;
  return rest;
}

describe('study create', () => {
  it('creates a study, refuses a duplicate, and continues it with --load-if-exists', async () => {
    const dir = project();
    const created = await cli(
      dir,
      'study',
      'create',
      'ppo',
      '--direction',
      'max',
      '--sampler',
      'random',
      '--seed',
      '7',
      '--pruner',
      'nop',
    );
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    expect(created.stdout).toContain(
      `Created study "ppo" in sqlite:${join(dir, 'tradelab.db')}\n  direction  maximize\n  sampler    random (seed 7)\n`,
    );

    const duplicate = await cliInProcess(dir, 'study', 'create', 'ppo', '--direction', 'max');
    expect(duplicate.code).toBe(2);
    expect(duplicate.stderr).toContain(
      `error [STUDY_EXISTS]: a study named "ppo" already exists in sqlite:${join(dir, 'tradelab.db')}`,
    );
    expect(duplicate.stderr).toMatch(/^hint: .*--load-if-exists/m);

    const loaded = await cliInProcess(
      dir,
      'study',
      'create',
      'ppo',
      '--direction',
      'maximize',
      '--load-if-exists',
      '--json',
    );
    expect(loaded.code).toBe(0);
    expect(jsonLines(loaded.stdout)).toEqual([
      expect.objectContaining({
        action: 'loaded',
        name: 'ppo',
        direction: 'maximize',
        sampler: { type: 'random', seed: 7 },
        pruner: { type: 'nop' },
      }),
    ]);

    const otherWay = await cliInProcess(
      dir,
      'study',
      'create',
      'ppo',
      '--direction',
      'min',
      '--load-if-exists',
    );
    expect(otherWay.code).toBe(2);
    expect(otherWay.stderr).toContain('exists with direction maximize, not minimize');
  });

  it('checks the direction, sampler and pruner before creating anything', async () => {
    const dir = project();
    const cases: [string[], RegExp][] = [
      [[], /--direction is required/],
      [['--direction', 'up'], /--direction: "up" is not allowed/],
      [['--direction', 'min', '--sampler', 'tp'], /unknown sampler type "tp".*did you mean tpe/],
      [['--direction', 'min', '--sampler-options', '{bad'], /--sampler-options: .* is not JSON/],
      [['--direction', 'min', '--sampler-options', '{"nStartupTrials": -3}'], /nStartupTrials/],
      [['--direction', 'min', '--sampler', 'grid'], /invalid grid sampler: searchSpace/],
      [['--direction', 'min', '--pruner', 'percentile'], /invalid percentile pruner: percentile/],
      [['--direction', 'min', '--pruner-options', '{"nope": 1}'], /invalid median pruner/],
    ];
    const results = await Promise.all(
      cases.map(([args]) => cliInProcess(dir, 'study', 'create', 'bad', ...args)),
    );
    for (const [i, [args, message]] of cases.entries()) {
      const result = results[i];
      expect(result?.code, args.join(' ')).toBe(2);
      expect(result?.stderr, args.join(' ')).toMatch(message);
      expect(result?.stderr).toMatch(/^hint: /m);
    }
    const list = await cliInProcess(dir, 'study', 'list');
    expect(list.stdout).toContain('No studies in sqlite:');
  });
});

describe('study names', () => {
  it('refuses a name longer than 100 characters, and prints a pasteable command for an odd one', async () => {
    const dir = project();
    const long = await cliInProcess(dir, 'study', 'create', 'x'.repeat(101), '--direction', 'min');
    expect(long.code).toBe(2);
    expect(long.stderr).toContain('study name is 101 characters long; at most 100 are allowed');
    const odd = await cliInProcess(dir, 'study', 'create', "it's mine", '--direction', 'min');
    expect(odd.code).toBe(0);
    expect(odd.stdout).toContain(
      "Run trials: tradelab study run 'it'\\''s mine' --objective objective.mjs --trials 100",
    );
  });
});

describe('study run, list, show, trials, export, rm', () => {
  const dir = project();
  const name = `quad-${randomUUID().slice(0, 8)}`;
  let run: CliResult;

  beforeAll(async () => {
    await createStudy(dir, name, { sampler: { type: 'tpe', seed: 3 } });
    // A relative MODULE resolves against the working directory.
    copyFileSync(SLOW_QUADRATIC, join(dir, 'objective.mjs'));
    // Trials of 250 ms: with 20 ms ones, a worker that started a second before the other (a
    // crowded machine) ran all 12 alone.
    run = await runCli(
      [
        'study',
        'run',
        name,
        '--objective',
        'objective.mjs',
        '--trials',
        '12',
        '--workers',
        '2',
        '--json',
      ],
      { cwd: dir, env: environment(250) },
    );
  });

  it('runs 12 trials in 2 worker processes and prints one record per trial and a summary', async () => {
    // Nothing on stderr but seed 004's line, which every training command logs as it starts.
    expect(run.stderr).toMatch(/^GPU: using profile 'CPU only' \(no GPU; .+\) .+; workers: 2\n$/);
    expect(run.code).toBe(0);
    const records = jsonLines(run.stdout);
    const trials = records.filter((r) => r.type === 'trial');
    expect(trials).toHaveLength(12);
    expect(new Set(trials.map((t) => t.number))).toEqual(new Set([...Array(12).keys()]));
    for (const t of trials) {
      expect(t.state).toBe('complete');
      const x = (t.params as { x: number }).x;
      expect(t.value).toBeCloseTo(x * x, 12);
    }
    const values = trials.map((t) => t.value as number);
    const best = Math.min(...values);
    const summary = records.at(-1);
    expect(summary).toMatchObject({
      type: 'summary',
      study: name,
      workers: 2,
      complete: 12,
      pruned: 0,
      failed: 0,
      lost: 0,
      interrupted: null,
      waiting: 0,
      best: { number: trials[values.indexOf(best)]?.number, value: best },
    });
    // Two processes ran them.
    const stored = await trialsOf(dir, name);
    expect(new Set(stored.map((t) => t.workerId?.split('/')[0])).size).toBe(2);
  });

  it('lists the study with its trials by state and best value', async () => {
    const list = await cliInProcess(dir, 'study', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /^NAME\s+DIRECTION\s+TRIALS\s+COMPLETE\s+PRUNED\s+FAIL\s+RETRIED\s+RUNNING/,
    );
    expect(list.stdout).toMatch(
      new RegExp(
        `^${name}\\s+minimize\\s+12\\s+12\\s+-\\s+-\\s+-\\s+-\\s+-\\s+[0-9.]+\\s+[0-9.e-]+\\s+tpe \\(`,
        'm',
      ),
    );
    const [record] = jsonLines((await cliInProcess(dir, 'study', 'list', '--json')).stdout);
    expect(record).toMatchObject({
      name,
      direction: 'minimize',
      counts: {
        total: 12,
        done: 12,
        complete: 12,
        pruned: 0,
        failed: 0,
        retried: 0,
        running: 0,
        waiting: 0,
      },
    });
    // Trials per hour of the study's running time: 12 trials of 250 ms on 2 workers.
    expect(record?.perHour).toBeGreaterThan(0);
  });

  it('shows state counts, the best trial, throughput and rates', async () => {
    const stored = await trialsOf(dir, name);
    const best = stored.reduce((a, b) => ((b.value ?? Infinity) < (a.value ?? Infinity) ? b : a));
    const show = await cliInProcess(dir, 'study', 'show', name);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`storage          sqlite:${join(dir, 'tradelab.db')}`);
    expect(show.stdout).toContain('trials           12 (12 complete)');
    expect(show.stdout).toMatch(new RegExp(`best {13}trial ${best.number}: `));
    expect(show.stdout).toMatch(/best params {6}x=-?[0-9.e-]+/);
    expect(show.stdout).toContain('completion rate  100.0% of trials done complete');
    expect(show.stdout).toContain('prune rate       0.0% of trials done pruned');
    expect(show.stdout).toMatch(/mean duration {4}\d+ ms per trial that ended/);
    expect(show.stdout).toMatch(/throughput {7}[0-9.]+ trials\/hour \(12 trials done between/);
    expect(show.stdout).toContain('sampler          tpe (');
    expect(show.stdout).toContain('pruner           median (');

    const [record] = jsonLines((await cliInProcess(dir, 'study', 'show', name, '--json')).stdout);
    const first = Math.min(...stored.map((t) => t.startedAt ?? Infinity));
    const last = Math.max(...stored.map((t) => t.finishedAt ?? -Infinity));
    expect(record).toMatchObject({
      name,
      completionRate: 1,
      pruneRate: 0,
      counts: { done: 12 },
      best: { number: best.number, value: best.value, params: best.params },
    });
    expect(record?.perHour).toBeCloseTo(12 / ((last - first) / 3_600_000), 6);
  });

  it('prints the trials as a table, as CSV and as JSON', async () => {
    const stored = await trialsOf(dir, name);
    const table = await cliInProcess(dir, 'study', 'trials', name);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(13);
    expect(lines[0]).toMatch(/^NUMBER\s+STATE\s+VALUE\s+x\s+DURATION\s+RETRY OF\s+FAIL REASON$/);
    expect(lines[1]).toMatch(/^\s*0\s+complete\s+[0-9.e-]+\s+-?[0-9.e-]+\s+\d+ ms\s+-$/);

    const csv = await cliInProcess(dir, 'study', 'trials', name, '--csv');
    expect(csv.code).toBe(0);
    const [header, ...rows] = parseCsv(csv.stdout);
    expect(header).toEqual([
      'number',
      'state',
      'value',
      'params_x',
      'datetime_start',
      'datetime_complete',
      'duration_ms',
      'retry_of',
      'fail_reason',
    ]);
    expect(rows).toHaveLength(12);
    for (const [i, row] of rows.entries()) {
      const t = stored[i];
      expect(row.slice(0, 4)).toEqual([
        String(t?.number),
        'complete',
        String(t?.value),
        String(t?.params.x),
      ]);
      expect(Number(row[6])).toBe((t?.finishedAt ?? 0) - (t?.startedAt ?? 0));
    }

    const json = jsonLines((await cliInProcess(dir, 'study', 'trials', name, '--json')).stdout);
    expect(json.map(portable)).toEqual(
      stored.map((t) => ({
        ...portable(t as unknown as Record<string, unknown>),
        durationMs: (t.finishedAt ?? 0) - (t.startedAt ?? 0),
      })),
    );
  });

  it('exports to another SQLite file, refuses an existing name there, and removes', async () => {
    const exported = await cli(dir, 'study', 'export', name, '--to', 'sqlite:./copy.db');
    expect(exported.stderr).toBe('');
    expect(exported.code).toBe(0);
    expect(exported.stdout).toContain(
      `Exported study "${name}" from sqlite:${join(dir, 'tradelab.db')} to sqlite:${join(dir, 'copy.db')}: 12 trials (12 complete), 0 artifacts.`,
    );
    const trials = (storage: string) =>
      cliInProcess(dir, 'study', 'trials', name, '--json', '--storage', storage).then((r) =>
        jsonLines(r.stdout).map(portable),
      );
    expect(await trials('sqlite:./copy.db')).toEqual(await trials('sqlite:./tradelab.db'));

    const again = await cliInProcess(dir, 'study', 'export', name, '--to', 'sqlite:./copy.db');
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(
      `error [STUDY_EXISTS]: sqlite:${join(dir, 'copy.db')} already has a study named "${name}"`,
    );
    expect(again.stderr).toMatch(/^hint: nothing was copied; remove that one first/m);

    const removed = await cli(dir, 'study', 'rm', name, '--storage', 'sqlite:./copy.db');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toBe(
      `Removed study "${name}" from sqlite:${join(dir, 'copy.db')} with 12 trials.\n`,
    );
    const gone = await cliInProcess(dir, 'study', 'show', name, '--storage', 'sqlite:./copy.db');
    expect(gone.code).toBe(2);
    expect(gone.stderr).toContain(`error [STUDY_NOT_FOUND]: no study named "${name}"`);
    // The original is untouched.
    expect(await trialsOf(dir, name)).toHaveLength(12);
  });

  it.skipIf(TEST_POSTGRES_URL === '')(
    'exports from SQLite to PostgreSQL (runs when the test PostgreSQL server is there)',
    async () => {
      const database = await freshPostgresDatabase('tradelab_study_cli');
      try {
        const exported = await cliInProcess(dir, 'study', 'export', name, '--to', database.url);
        expect(exported.stderr).toBe('');
        expect(exported.code).toBe(0);
        expect(exported.stdout).toContain('12 trials (12 complete)');
        const there = await cliInProcess(
          dir,
          'study',
          'trials',
          name,
          '--json',
          '--storage',
          database.url,
        );
        expect(jsonLines(there.stdout).map(portable)).toEqual(
          jsonLines((await cliInProcess(dir, 'study', 'trials', name, '--json')).stdout).map(
            portable,
          ),
        );
      } finally {
        await database.drop();
      }
    },
  );

  it('names the studies there are when one is not found', async () => {
    const result = await cliInProcess(
      dir,
      'study',
      'run',
      'qaud',
      '--objective',
      'objective.mjs',
      '--trials',
      '1',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error [STUDY_NOT_FOUND]: no study named "qaud"');
    expect(result.stderr).toContain(`studies: ${name}`);
    const missing = await cliInProcess(
      dir,
      'study',
      'run',
      name,
      '--objective',
      'nope.mjs',
      '--trials',
      '1',
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`objective module ${join(dir, 'nope.mjs')} does not exist`);
    const unknown = await cliInProcess(
      dir,
      'study',
      'run',
      name,
      '--objective',
      'quadratc',
      '--trials',
      '1',
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no objective named "quadratc"');
    expect(unknown.stderr).toContain('did you mean quadratic?');
  });
});

describe('a study storage that cannot be written', () => {
  /** Root writes read-only files anyway: as root, the reading runs as nobody. */
  const reader =
    process.getuid?.() === 0 ? { user: { uid: 65534, gid: 65534 } } : ({} as Record<string, never>);

  it('lists, shows and prints the trials of a read-only file in a read-only directory', async () => {
    const dir = project();
    const storage = await storageOf(dir);
    try {
      const study = await Study.create(storage, { name: 'ro', direction: 'minimize' });
      const ran = await optimize(study, (trial) => trial.suggestFloat('x', -5, 5) ** 2, {
        nTrials: 3,
      });
      expect(ran.complete).toBe(3);
    } finally {
      await storage.close();
    }
    chmodSync(join(dir, 'tradelab.db'), 0o444);
    chmodSync(dir, 0o555);
    try {
      const as = (...args: string[]): Promise<CliResult> =>
        runCli(args, { cwd: dir, env: environment(20), ...reader });
      const list = await as('study', 'list', '--json');
      expect(list.code, list.stderr).toBe(0);
      expect(
        jsonLines(list.stdout).map((s) => [s.name, (s.counts as { total: number }).total]),
      ).toEqual([['ro', 3]]);
      const show = await as('study', 'show', 'ro');
      expect(show.code, show.stderr).toBe(0);
      expect(show.stdout).toContain('complete');
      const trials = await as('study', 'trials', 'ro', '--json');
      expect(trials.code, trials.stderr).toBe(0);
      expect(jsonLines(trials.stdout)).toHaveLength(3);
      // Nothing was written beside it (no -wal or -shm left in the directory).
      expect(readdirSync(dir)).toEqual(['tradelab.db']);
      // A command that writes says the file is read-only, not "disk I/O error".
      const write = await as('study', 'run', 'ro', '--objective', 'quadratic', '--trials', '1');
      expect(write.code).toBe(1);
      expect(write.stderr).toContain(`${join(dir, 'tradelab.db')} is read-only`);
      expect(write.stderr).not.toContain('disk I/O error');
    } finally {
      chmodSync(dir, 0o755);
      chmodSync(join(dir, 'tradelab.db'), 0o644);
    }
  });

  // A real full disk: a 512 KiB tmpfs, where the system lets this test mount one (root on Linux).
  const mountable = ((): boolean => {
    if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
    const probe = project();
    const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]);
    if (mounted.status !== 0) return false;
    spawnSync('umount', [probe]);
    return true;
  })();

  it.runIf(mountable)('says the disk is full when it is, at open and while writing', async () => {
    const dir = project();
    expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=512k', 'tmpfs', dir]).status).toBe(0);
    try {
      await createStudy(dir, 'full');
      // Leave about 80 KiB: the first trials fit, the rest do not.
      writeFileSync(join(dir, 'filler'), Buffer.alloc(400 * 1024));
      const run = await cli(
        dir,
        'study',
        'run',
        'full',
        '--objective',
        'quadratic',
        '--trials',
        '400',
        '--workers',
        '1',
      );
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`the disk holding ${join(dir, 'tradelab.db')} is full`);
      // Not a byte left: SQLite fails opening the file with "disk I/O error".
      spawnSync('dd', ['if=/dev/zero', `of=${join(dir, 'filler2')}`, 'bs=4k']);
      const open = await cliInProcess(dir, 'study', 'create', 'more', '--direction', 'min');
      expect(open.code).toBe(1);
      expect(open.stderr).toContain(`the disk holding ${join(dir, 'tradelab.db')} is full`);
      expect(open.stderr).toMatch(/hint: free space on .*df -h/);
      // Reading needs no room: the study is still listed.
      const list = await cliInProcess(dir, 'study', 'list', '--json');
      expect(list.code, list.stderr).toBe(0);
      expect(jsonLines(list.stdout).map((s) => s.name)).toEqual(['full']);
    } finally {
      spawnSync('umount', [dir]);
    }
  });
});

describe('study trials --csv', () => {
  it('says why each trial failed as it happens, and exits 1 when no trial completed', async () => {
    const dir = project();
    await createStudy(dir, 'broken', { sampler: { type: 'random' } });
    const run = await cli(
      dir,
      'study',
      'run',
      'broken',
      '--objective',
      join(OBJECTIVES, 'always-fails.mjs'),
      '--trials',
      '2',
      '--workers',
      '1',
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/trial 0 failed: the input for x=0\.\d\d is missing \(x=/);
    expect(run.stderr).toMatch(/trial 1 failed: the input for x=/);
    expect(run.stderr).toContain('no trial of this run completed: 2 failed');
    expect(run.stdout).toContain('0 complete, 0 pruned, 2 failed, 0 lost.');
  });

  it('says what an objective threw and where when it threw no message: in a trial, in createObjective, as it loaded', async () => {
    const dir = project();
    await createStudy(dir, 'mute', { sampler: { type: 'random' } });
    writeFileSync(
      join(dir, 'trial-throws.mjs'),
      "export function objective(trial) {\n  trial.suggestFloat('x', 0, 1);\n  throw new Error();\n}\n",
    );
    writeFileSync(
      join(dir, 'setup-throws.mjs'),
      "export function createObjective() {\n  throw new Error('');\n}\n",
    );
    writeFileSync(join(dir, 'load-throws.mjs'), 'throw new Error();\n');
    const run = (module: string): Promise<CliResult> =>
      cli(dir, 'study', 'run', 'mute', '--objective', module, '--trials', '2', '--workers', '2');
    // A trial's error without a message fails that trial, not the run.
    const trial = await run('trial-throws.mjs');
    expect(trial.code, trial.stderr).toBe(1);
    expect(trial.stderr).toMatch(
      /trial \d failed: Error with no message, thrown at objective \(file:.*trial-throws\.mjs:3:9\)/,
    );
    expect(trial.stderr).toContain('error [TRIALS_FAILED]: no trial of this run completed');
    const setup = await run('setup-throws.mjs');
    expect(setup.code).toBe(2);
    expect(setup.stderr).toMatch(
      /error \[OBJECTIVE_INVALID\]: a trial worker failed: objective module .*setup-throws\.mjs: createObjective\(\) threw: Error with no message, thrown at .*setup-throws\.mjs:2:9/,
    );
    const load = await run('load-throws.mjs');
    expect(load.code).toBe(2);
    expect(load.stderr).toMatch(
      /error \[OBJECTIVE_INVALID\]: .*load-throws\.mjs failed to load: Error with no message, thrown at .*load-throws\.mjs:1:7/,
    );
    for (const result of [trial, setup, load]) expect(result.stderr).not.toMatch(/: ?\n/);
  });

  it('quotes fields with commas, quotes and line breaks', async () => {
    const dir = project();
    await createStudy(dir, 'mixed', { sampler: { type: 'random', seed: 1 } });
    const run = await cli(
      dir,
      'study',
      'run',
      'mixed',
      '--objective',
      join(OBJECTIVES, 'mixed-outcomes.mjs'),
      '--trials',
      '4',
      '--workers',
      '1',
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Finished 4 trials in');
    expect(run.stdout).toContain('2 complete, 1 pruned, 1 failed, 0 lost.');
    const stored = await trialsOf(dir, 'mixed');
    const [header, ...rows] = parseCsv(
      (await cliInProcess(dir, 'study', 'trials', 'mixed', '--csv')).stdout,
    );
    expect(header?.slice(0, 5)).toEqual(['number', 'state', 'value', 'params_x', 'params_mode']);
    expect(rows.map((r) => [r[0], r[1], r[4], r[9]])).toEqual(
      stored.map((t) => [String(t.number), t.state, t.params.mode, t.failReason ?? '']),
    );
    expect(rows[1]?.[9]).toBe('bad "x", see\nline 2');

    const show = await cliInProcess(dir, 'study', 'show', 'mixed');
    expect(show.stdout).toContain('trials           4 (2 complete, 1 pruned, 1 fail)');
    expect(show.stdout).toContain('completion rate  50.0% of trials done complete');
    expect(show.stdout).toContain('prune rate       25.0% of trials done pruned');
    // The table keeps one line per trial (below it, after a blank line, what a pruned value is).
    const [tableText = '', note = ''] = (
      await cliInProcess(dir, 'study', 'trials', 'mixed')
    ).stdout.split('\n\n');
    const table = tableText.trimEnd().split('\n');
    expect(table).toHaveLength(5);
    expect(note).toMatch(/^intermediate: a pruned trial's value is the last intermediate value/);
    expect(table[2]).toMatch(/fail .* bad "x", see ⏎ line 2$/);
  });
});
