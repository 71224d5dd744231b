import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../../test/support/run-cli.js';
import { sweepStaleTemps } from './stale-files.js';

describe('sweepStaleTemps', () => {
  it('removes the temps of dead writers, in the store and its symbol folders, and nothing else', () => {
    const dir = tempDir('tradelab-stale-temps-');
    const folder = join(dir, 'BTC');
    mkdirSync(folder);
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const live = process.pid;
    const hoursAgo = (hours: number): Date => new Date(Date.now() - hours * 3_600_000);
    const files: [string, Date?][] = [
      [`BTC/.1m.0000aaaa.parquet.tmp-${dead}-1a2b3c`],
      [`BTC/..1m.0000aaaa.parquet.tmp-${dead}-1a2b3c.tmp-${dead}-00ff00ff00ff`],
      [`BTC/.1m.0000aaaa.features-0123456789ab.parquet.tmp-${dead}-00ff00ff00ff`],
      [`catalog.json.tmp-${dead}-k3j4h5`],
      [`catalog.lock.tmp-${dead}-k3j4h5`],
      [`catalog.lock.stale-${dead}-k3j4h5`],
      [`BTC/.1m.0000bbbb.parquet.tmp-${live}-1a2b3c`],
      [`catalog.json.tmp-${live}-k3j4h5`],
      // Written before temps carried a pid: stale once an hour old.
      ['BTC/.1m.0000cccc.parquet.tmp-0123456789ab', hoursAgo(2)],
      ['BTC/.1m.0000dddd.parquet.tmp-0123456789ab', hoursAgo(0.1)],
      ['BTC/1m.0000eeee.parquet', hoursAgo(2)],
      ['BTC/1m.lock'],
      ['catalog.json', hoursAgo(2)],
    ];
    for (const [name, time] of files) {
      writeFileSync(join(dir, name), 'x');
      if (time !== undefined) utimesSync(join(dir, name), time, time);
    }
    mkdirSync(join(dir, `BTC/.1m.0000ffff.parquet.tmp-${dead}-1a2b3c`));
    const removed = sweepStaleTemps(dir);
    expect(removed.map((p) => p.slice(dir.length + 1)).sort()).toEqual(
      [
        ...files.slice(0, 6).map(([name]) => name),
        'BTC/.1m.0000cccc.parquet.tmp-0123456789ab',
      ].sort(),
    );
    expect(readdirSync(folder).sort()).toEqual(
      [
        `.1m.0000bbbb.parquet.tmp-${live}-1a2b3c`,
        '.1m.0000dddd.parquet.tmp-0123456789ab',
        `.1m.0000ffff.parquet.tmp-${dead}-1a2b3c`,
        '1m.0000eeee.parquet',
        '1m.lock',
      ].sort(),
    );
    expect(sweepStaleTemps(join(dir, 'no-store-here'))).toEqual([]);
  });
});
