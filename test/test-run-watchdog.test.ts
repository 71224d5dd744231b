import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, tempDir } from './support/run-cli.js';

const WATCHDOG = join(REPO_ROOT, 'scripts', 'test-run-watchdog.sh');
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('the test run watchdog', () => {
  it("removes a run's directory once the run's process is gone, however it ended", async () => {
    const dir = join(tempDir('watchdog-'), 'tradelab-vitest-1');
    mkdirSync(join(dir, 'some-test'), { recursive: true });
    writeFileSync(join(dir, 'some-test', 'study.db'), 'x');
    const run = spawn('sleep', ['30']);
    const watchdog = spawn('bash', [WATCHDOG, String(run.pid), dir], { stdio: 'ignore' });
    await sleep(1500);
    expect(existsSync(dir)).toBe(true); // the run still goes on
    run.kill('SIGKILL');
    const exited = new Promise((resolve) => watchdog.on('exit', resolve));
    await exited;
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses a directory that is not a test run directory', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tradelab-not-a-run-'));
    const result = spawnSync('bash', [WATCHDOG, '1', dir], { encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('refusing to remove');
    expect(existsSync(dir)).toBe(true);
  });

  it("puts the tests' temporary directories inside the run directory", () => {
    expect(tempDir()).toMatch(/\/tradelab-vitest-\d+\/tradelab-test-/);
  });
});
