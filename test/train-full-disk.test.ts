import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from './support/run-cli.js';
import { mountTmpfs, unmountTmpfs } from './support/tmpfs.js';
import { syntheticProject, tinyRunFlags } from './support/train-fixture.js';

/*
 * `train ppo --out` on a disk that fills up during the run, for real: a 256 KB tmpfs with a filler
 * that leaves room for the first updates and checkpoints only. The run must stop with FILE_ACCESS
 * naming the file and the room left (not INTERNAL ENOSPC), keep what it wrote before, leave no
 * half-written checkpoint, and go on with --resume once there is room again. Mounting needs root
 * (CI runs as root); elsewhere the file is skipped, saying why.
 */

let project: string;
const disk = join(tempDir('tradelab-train-disk-'), 'disk');
mkdirSync(disk);
/** Why the tmpfs could not be mounted here; undefined when it is. */
const cannotMount = mountTmpfs(disk, '256k');

describe.skipIf(cannotMount !== undefined)(
  `train ppo onto a disk that fills up${cannotMount === undefined ? '' : ` (skipped: ${cannotMount})`}`,
  () => {
    beforeAll(async () => {
      project = await syntheticProject('tradelab-train-disk-');
    }, 60_000);
    afterAll(() => {
      unmountTmpfs(disk);
    });

    it('stops with FILE_ACCESS, keeps what it wrote, and resumes once there is room', async () => {
      const out = join(disk, 'run');
      const filler = join(disk, 'filler');
      // About 50 KB left: the run itself needs about 130 KB.
      writeFileSync(filler, Buffer.alloc(200 * 1024));
      const flags = [...tinyRunFlags({ 'checkpoint-every': '2' }), '--steps', String(256 * 20)];
      const full = await runCli(['train', 'ppo', ...flags, '--out', out], { cwd: project });
      expect(full.code, full.stderr).toBe(1);
      expect(full.stderr).toMatch(
        new RegExp(
          `^error \\[FILE_ACCESS\\]: cannot write ${out}/\\S+: no space left on device \\([\\d.]+ (KiB|B) free on that disk\\); what the run wrote before is kept$`,
          'm',
        ),
      );
      expect(full.stderr).toContain(
        `hint: free some space on that disk, then continue with: tradelab train ppo --out ${out} --resume`,
      );
      expect(full.stderr).not.toContain('INTERNAL');
      // No checkpoint half-written beside the kept one, and no temp folder named in the message.
      expect(full.stderr).not.toMatch(/\.tmp-/);
      expect(readdirSync(join(out, 'checkpoints')).filter((f) => f !== 'latest')).toEqual([]);

      rmSync(filler);
      const resumed = await runCli(['train', 'ppo', '--out', out, '--resume'], { cwd: project });
      expect(resumed.code, resumed.stderr).toBe(0);
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
        status: string;
        progress: { updatesDone: number };
      };
      expect(manifest.status).toBe('finished');
      expect(manifest.progress.updatesDone).toBe(20);
    }, 120_000);
  },
);
