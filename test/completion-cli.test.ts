import { execFile, execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './support/run-cli.js';

/*
 * `tradelab completion SHELL` scripts, run by the real shells' completion machinery: bash's
 * COMP_WORDS/COMPREPLY, zsh's completion function with words/CURRENT (its _describe and _files,
 * which need a terminal, replaced by ones that print), fish's `complete -C`.
 */

/**
 * Whether a shell is installed: zsh and fish are skipped where they are not, except in CI, whose
 * script installs them (.ci/run), so there a missing shell fails; bash never is.
 */
function installed(shell: string): boolean {
  if (process.env.CI === 'true') return true;
  try {
    execFileSync(shell, ['-c', 'exit 0'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const dir = tempDir('tradelab-completion-');
const scripts: Record<string, string> = {};

beforeAll(async () => {
  for (const shell of ['bash', 'zsh', 'fish']) {
    const result = await runCli(['completion', shell]);
    expect(result.code, result.stderr).toBe(0);
    scripts[shell] = join(dir, `tradelab.${shell}`);
    writeFileSync(scripts[shell], result.stdout);
  }
}, 60_000);

/** What bash offers for the words typed, the last one being completed. */
async function bashCompletes(...words: string[]): Promise<string[]> {
  const array = ['tradelab', ...words].map((w) => `'${w}'`).join(' ');
  const { stdout } = await promisify(execFile)('bash', [
    '-c',
    `source '${scripts.bash}'; COMP_WORDS=(${array}); COMP_CWORD=${words.length}; _tradelab; printf '%s\\n' "\${COMPREPLY[@]}"`,
  ]);
  return stdout.split('\n').filter((l) => l !== '');
}

/** What zsh's completion function offers (all candidates: zsh filters by the prefix itself). */
async function zshCompletes(...words: string[]): Promise<string[]> {
  const array = ['tradelab', ...words].map((w) => `'${w}'`).join(' ');
  const { stdout } = await promisify(execFile)('zsh', [
    '-fc',
    `compdef() { :; }; _describe() { print -l -- \${(P)4}; }; _files() { print '<files>'; }
source '${scripts.zsh}'; words=(${array}); CURRENT=${words.length + 1}; _tradelab`,
  ]);
  return stdout.split('\n').filter((l) => l !== '');
}

/** What fish offers for the command line (`complete -C`), without descriptions. */
async function fishCompletes(line: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)('fish', [
    '-c',
    `source '${scripts.fish}'; complete -C '${line}'`,
  ]);
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t')[0] ?? '');
}

describe('tradelab completion bash', () => {
  it('completes commands, a group’s commands, options and the completion shells', async () => {
    expect(await bashCompletes('da')).toEqual(['data']);
    expect(await bashCompletes('b')).toEqual(['bench', 'backtest', 'backends']);
    expect(await bashCompletes('data', '')).toEqual(
      expect.arrayContaining(['import', 'list', 'show', 'resample', 'synth']),
    );
    expect(await bashCompletes('study', 'r')).toEqual(['run', 'rm']);
    expect(await bashCompletes('data', 'import', 'btc.csv', '--sy')).toEqual(['--symbol']);
    expect(await bashCompletes('train', 'ppo', '--res')).toEqual(['--resume']);
    expect(await bashCompletes('profiles', 'plan', '--no-d')).toEqual(['--no-detect']);
    expect(await bashCompletes('--ver')).toEqual(['--verbose', '--version']);
    expect(await bashCompletes('completion', '')).toEqual(['bash', 'zsh', 'fish']);
  });

  it('leaves FILE arguments to bash’s file names (nothing of its own)', async () => {
    expect(await bashCompletes('data', 'import', '')).toEqual([]);
    expect(await bashCompletes('frobnicate', '')).toEqual([]);
  });

  it('knows every command of the help', async () => {
    const help = await runCli(['--help']);
    const commands = help.stdout
      .split('\n')
      .filter((l) => /^ {2}[a-z]/.test(l))
      .map((l) => l.trim().split(/\s{2,}/)[0] ?? '');
    expect(commands.length).toBeGreaterThan(30);
    for (const command of commands) {
      const words = command.split(' ');
      const last = words.pop() ?? '';
      expect(await bashCompletes(...words, last), command).toContain(last);
    }
  }, 120_000);
});

describe.skipIf(!installed('zsh'))('tradelab completion zsh', () => {
  it('offers commands with descriptions, options, and files for arguments', async () => {
    expect(await zshCompletes('da')).toContain('data:data commands');
    expect(await zshCompletes('data', '')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^import:import CSV/)]),
    );
    expect(await zshCompletes('data', 'import', 'btc.csv', '--sy')).toEqual(
      expect.arrayContaining([expect.stringMatching(/^--symbol:the symbol/)]),
    );
    expect(await zshCompletes('data', 'import', '')).toEqual(['<files>']);
  });
});

describe.skipIf(!installed('fish'))('tradelab completion fish', () => {
  it('offers commands, options, and the completion shells', async () => {
    expect(await fishCompletes('tradelab da')).toEqual(['data']);
    expect(await fishCompletes('tradelab study r')).toEqual(['rm', 'run']);
    expect(await fishCompletes('tradelab data import btc.csv --sy')).toEqual(['--symbol']);
    expect(await fishCompletes('tradelab completion ')).toEqual(['bash', 'fish', 'zsh']);
  });
});

describe('tradelab completion', () => {
  it('names the shells it knows for another one, exit 2', async () => {
    const result = await runCli(['completion', 'bsh']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('tradelab writes it for bash, zsh, fish');
    expect(result.stderr).toContain('did you mean `tradelab completion bash`?');
  });
});
