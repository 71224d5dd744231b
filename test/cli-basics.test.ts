import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../src/cli/command-table.js';
import { parseCommandLine } from '../src/cli/main.js';
import { runCli, runCliInProcess } from './support/run-cli.js';

/*
 * The command line's basics. A few run as real processes (help, the version, an unknown command,
 * a stack trace: exit codes 0 and 2 on real streams); their many variants run in this process
 * (runCliInProcess), through the same entry function.
 */

describe('tradelab CLI basics', () => {
  it('prints help listing every command, exit 0', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const command of [
      'quickstart',
      'profiles list',
      'profiles show',
      'profiles detect',
      'profiles plan',
      'config show',
    ]) {
      expect(result.stdout).toContain(command);
    }
  });

  it('prints a command help with its options and settings flags', async () => {
    const result = await runCliInProcess(['profiles', 'plan', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('--net-dim N');
    expect(result.stdout).toContain('--profile VALUE');
    expect(result.stdout).toContain('GPU_PROFILE');
  });

  it('prints the version', async () => {
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('rejects an unknown command with exit 2 and a suggestion', async () => {
    const result = await runCli(['profile', 'lst']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('error [UNKNOWN_COMMAND]: unknown command "profile lst"');
    expect(result.stderr).toContain('hint: did you mean `tradelab profiles list`?');
  });

  it('names the sub-commands of a group', async () => {
    const result = await runCliInProcess(['profiles', 'frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('`profiles` takes: list, show, detect, plan');
  });

  it('rejects an unknown option with exit 2 and the closest option', async () => {
    const result = await runCliInProcess(['profiles', 'plan', '--net-dimm', '512']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown option --net-dimm');
    expect(result.stderr).toContain('did you mean --net-dim?');
  });

  it('rejects a bad option value with the flag, the value and what is allowed', async () => {
    const result = await runCliInProcess([
      'profiles',
      'plan',
      '--batch-size',
      'lots',
      '--no-detect',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      '--batch-size: "lots" is not allowed: expected a whole number >= 1',
    );
  });

  it('reads a negative number after an option as its value, and says why it is not allowed', async () => {
    for (const args of [
      ['study', 'run', 'nowhere', '--trials', '-5'],
      ['study', 'run', 'nowhere', '--trials=-5'],
    ]) {
      const result = await runCliInProcess(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(
        '--trials: "-5" is not allowed: expected a whole number >= 1',
      );
      expect(result.stderr).not.toContain('ambiguous');
    }
    // An option name after an option that takes a value is still the next option, not its value.
    const missing = await runCliInProcess([
      'study',
      'run',
      'nowhere',
      '--trials',
      '--workers',
      '2',
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('error [USAGE]: --trials needs a value');
    const last = await runCliInProcess(['study', 'run', 'nowhere', '--trials']);
    expect(last.stderr).toContain('error [USAGE]: --trials needs a value');
  });

  it('requires the positional argument', async () => {
    const result = await runCliInProcess(['study', 'show']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('missing NAME');
  });

  it('prints the stack with --verbose, not without', async () => {
    const quiet = await runCli(['profiles', 'show', 'nope']);
    const verbose = await runCli(['profiles', 'show', 'nope', '--verbose']);
    expect(quiet.code).toBe(2);
    expect(quiet.stderr.split('\n').filter(Boolean)).toHaveLength(2);
    expect(verbose.stderr).toContain('at ');
    expect(verbose.stderr).toContain('TradelabError');
  });

  it('adds a JSON error record with --json', async () => {
    const result = await runCliInProcess(['profiles', 'show', 'a100', '--json']);
    expect(result.code).toBe(2);
    const record = result.stderr.split('\n').find((line) => line.startsWith('{'));
    expect(JSON.parse(record ?? '{}')).toMatchObject({ error: { code: 'AMBIGUOUS_PROFILE' } });
  });

  it('prints the version for -V and --version, at the top and after a command', async () => {
    for (const args of [['-V'], ['--version'], ['data', 'list', '--version'], ['study', '-V']]) {
      const result = await runCliInProcess(args);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stdout.trim(), args.join(' ')).toMatch(/^\d+\.\d+\.\d+$/);
    }
  });

  it('lists --version and --no-color among the global options of every help', async () => {
    for (const args of [['--help'], ['data', 'import', '--help']]) {
      const result = await runCliInProcess(args);
      expect(result.stdout).toMatch(/^\s+-V, --version\s+print the version/m);
      expect(result.stdout).toMatch(/^\s+--no-color\s+/m);
    }
  });

  it("prints a group's commands for the group alone, --help or `help GROUP`, exit 0", async () => {
    for (const args of [['data'], ['data', '--help'], ['help', 'data'], ['data', '-h']]) {
      const result = await runCliInProcess(args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toContain('Usage: tradelab data <command> [options]');
      expect(result.stdout).toMatch(/^ {2}data import\s+\S/m);
      expect(result.stdout).toMatch(/^ {2}data synth\s+\S/m);
      expect(result.stdout).not.toMatch(/^ {2}study /m);
      expect(result.stdout).toContain('tradelab data <command> --help');
    }
    const train = await runCliInProcess(['train']);
    expect(train.code).toBe(0);
    expect(train.stdout).toMatch(/^ {2}train ppo\s+\S/m);
  });

  it('still rejects an unknown command inside a group, and an unknown option on a group', async () => {
    const result = await runCliInProcess(['data', 'frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command "data frobnicate"');
    const option = await runCliInProcess(['data', '--frobnicate']);
    expect(option.code).toBe(2);
    expect(option.stderr).toContain('unknown option --frobnicate');
  });

  it('gives every command each --no-X it declares, also where it declares --X too', () => {
    const negations = COMMANDS.flatMap((spec) =>
      spec.options
        .filter((o) => o.name.startsWith('no-'))
        .map((o) => ({ spec, name: o.name, command: `${spec.words.join(' ')} --${o.name}` })),
    );
    // The table's negations, two of which are beside their option (`--test RANGE`, `--checkpoint`).
    expect(negations.map((n) => n.command)).toEqual(
      expect.arrayContaining(['train ppo --no-test', 'pretrain tcn --no-checkpoint']),
    );
    for (const { spec, name, command } of negations) {
      const { values } = parseCommandLine(spec, [`--${name}`]);
      expect(values[name], command).toBe(true);
      expect(values[name.slice(3)], command).toBeUndefined();
    }
  });
});
