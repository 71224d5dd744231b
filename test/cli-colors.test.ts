import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN, runCli } from './support/run-cli.js';

/** An ANSI color or style code. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[\\d+m`);

/**
 * Runs the CLI on a real terminal: util-linux `script` gives it a pseudo-terminal, and what the
 * terminal showed (stdout and stderr together) comes back.
 */
function runOnTerminal(args: readonly string[], env: Record<string, string> = {}): Promise<string> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ');
  return new Promise((resolvePromise, reject) => {
    const child = spawn('script', ['-q', '-e', '-c', command, '/dev/null'], {
      env: {
        PATH: '/usr/local/bin:/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        TERM: 'xterm',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => {
      resolvePromise(text);
    });
  });
}

describe('colors', () => {
  it('colors errors red and help headings bold on a terminal', async () => {
    const error = await runOnTerminal(['profiles', 'show', 'nope']);
    expect(error).toContain('\u001b[31merror [UNKNOWN_PROFILE]');
    const help = await runOnTerminal(['--help']);
    expect(help).toContain('\u001b[1mCommands:\u001b[22m');
  });

  it('prints no color on a terminal with NO_COLOR or --no-color', async () => {
    expect(await runOnTerminal(['profiles', 'show', 'nope'], { NO_COLOR: '1' })).not.toMatch(ANSI);
    expect(await runOnTerminal(['profiles', 'show', 'nope', '--no-color'])).not.toMatch(ANSI);
    expect(await runOnTerminal(['--no-color', '--help'])).not.toMatch(ANSI);
  });

  it('prints no color into a pipe, unless FORCE_COLOR asks', async () => {
    const piped = await runCli(['profiles', 'show', 'nope']);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('error [UNKNOWN_PROFILE]');
    expect(piped.stderr).not.toMatch(ANSI);
    const forced = await runCli(['profiles', 'show', 'nope'], { env: { FORCE_COLOR: '1' } });
    expect(forced.stderr).toContain('\u001b[31merror [UNKNOWN_PROFILE]');
    const refused = await runCli(['profiles', 'show', 'nope', '--no-color'], {
      env: { FORCE_COLOR: '1' },
    });
    expect(refused.stderr).not.toMatch(ANSI);
  });
});
