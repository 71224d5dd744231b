/**
 * Every command tradelab prints as a next step works exactly as printed: each test runs a command,
 * collects the `tradelab …` lines its output suggests, and runs each of them in a shell from the
 * same directory. A suggestion that forgot where the run kept its studies (the quickstart's own
 * database, a `--storage` flag) fails here.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, runPrintedCommand, tempDir } from './support/run-cli.js';

/**
 * The `tradelab …` commands a text suggests: in backticks, or after a label (`Report: tradelab …`).
 * Those with a placeholder in capitals (FILE, NAME) are templates for the user to fill in.
 */
function suggestedCommands(text: string): string[] {
  const found = [
    ...[...text.matchAll(/`(tradelab [^`]+)`/g)].map((match) => match[1] ?? ''),
    ...[...text.matchAll(/^[A-Z][\w ]*: (tradelab \S.*)$/gm)].map((match) => match[1] ?? ''),
  ];
  return [...new Set(found)].filter((command) => !/\b[A-Z]{3,}\b/.test(command));
}

/** Runs each command as printed from `cwd` and expects it to succeed. */
async function expectEachWorks(commands: readonly string[], cwd: string): Promise<void> {
  for (const command of commands) {
    const result = await runPrintedCommand(command, { cwd });
    expect(result.code, `${command}\n${result.stderr}`).toBe(0);
  }
}

describe('suggested commands', () => {
  it("the quickstart's suggestions reach its own database and data store", async () => {
    const cwd = tempDir();
    const result = await runCli(['quickstart', '--trials', '1', '--steps', '256'], { cwd });
    expect(result.code, result.stderr).toBe(0);
    const commands = suggestedCommands(result.stdout);
    await expectEachWorks(commands, cwd);
    expect(commands).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^tradelab campaign report quickstart /),
        expect.stringMatching(/^tradelab campaign project quickstart --to h100 /),
        'tradelab data import --help',
      ]),
    );
  });

  it("a study made with --storage: its 'Run trials' line carries the flag", async () => {
    const cwd = tempDir();
    writeFileSync(
      join(cwd, 'objective.mjs'),
      "export function objective(trial) { return (trial.suggestFloat('x', -10, 10) - 2) ** 2; }\n",
    );
    const result = await runCli(
      ['study', 'create', 'demo', '--direction', 'min', '--storage', 'sqlite:studies/demo.db'],
      { cwd },
    );
    expect(result.code, result.stderr).toBe(0);
    const commands = suggestedCommands(result.stdout);
    await expectEachWorks(commands, cwd);
    expect(commands).toEqual([
      'tradelab study run demo --objective objective.mjs --trials 100 --storage sqlite:studies/demo.db',
    ]);
    // A study with no trials yet says how to run some, in its own storage too.
    const other = ['--storage', 'sqlite:studies/other.db'];
    expect(
      (await runCli(['study', 'create', 'other', '--direction', 'min', ...other], { cwd })).code,
    ).toBe(0);
    const empty = await runCli(['study', 'trials', 'other', ...other], { cwd });
    expect(suggestedCommands(empty.stdout)).toEqual([
      'tradelab study run other --objective objective.mjs --trials 100 --storage sqlite:studies/other.db',
    ]);
    await expectEachWorks(suggestedCommands(empty.stdout), cwd);
  });

  it('bench learn-study --dir: the kept study opens as printed', async () => {
    const cwd = tempDir();
    const args = ['--trials', '2', '--workers', '1', '--steps', '2048', '--dir', 'kept study'];
    const result = await runCli(['bench', 'learn-study', ...args], { cwd });
    expect(result.code, result.stderr).toBe(0);
    const commands = suggestedCommands(result.stdout);
    expect(commands).toEqual([
      expect.stringMatching(/^tradelab study show learn-study --storage /),
    ]);
    await expectEachWorks(commands, cwd);
  });
});
