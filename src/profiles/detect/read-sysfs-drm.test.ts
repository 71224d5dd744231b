import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_DRM_ROOT, readSysfsDrm } from './read-sysfs-drm.js';
import { tempDir } from '../../../test/support/temp-dir.js';

const FIXTURES = fileURLToPath(new URL('../../../test/fixtures/detect/', import.meta.url));

function drmFixture(name: string): string {
  return join(FIXTURES, name, 'class', 'drm');
}

describe('readSysfsDrm on recorded trees', () => {
  it('reads an RX 7900 XT, naming it from the PCI device id', () => {
    expect(readSysfsDrm(drmFixture('sysfs-rx7900xt'))).toEqual({
      gpus: [
        {
          index: 0,
          name: 'AMD Radeon RX 7900 XT/7900 XTX/7900 GRE (Navi 31)',
          vendor: 'amd',
          tool: 'sysfs',
          memoryTotalBytes: 21_458_059_264,
          memoryUsedBytes: 27_856_896,
        },
      ],
      warnings: [],
    });
  });

  it('names a card without a device file after its directory', () => {
    expect(readSysfsDrm(drmFixture('sysfs-amdgpu-8gb'))).toEqual({
      gpus: [
        {
          index: 0,
          name: 'AMD GPU card0',
          vendor: 'amd',
          tool: 'sysfs',
          memoryTotalBytes: 8_573_157_376,
          memoryUsedBytes: 6_812_925_952,
        },
      ],
      warnings: [],
    });
  });

  it('lists a dGPU and an APU, naming unknown device ids by their hex id', () => {
    expect(readSysfsDrm(drmFixture('sysfs-rx6800-raphael'))).toEqual({
      gpus: [
        {
          index: 0,
          name: 'AMD GPU 0x73bf',
          vendor: 'amd',
          tool: 'sysfs',
          memoryTotalBytes: 17_163_091_968,
          memoryUsedBytes: 692_142_080,
        },
        {
          index: 1,
          name: 'AMD GPU 0x164e',
          vendor: 'amd',
          tool: 'sysfs',
          memoryTotalBytes: 67_108_864,
          memoryUsedBytes: 26_079_232,
        },
      ],
      warnings: [],
    });
  });

  it('reads a UMA APU without mem_info_vram_used, leaving used memory out', () => {
    const parsed = readSysfsDrm(drmFixture('sysfs-strix-halo-uma'));
    expect(parsed.warnings).toEqual([]);
    expect(parsed.gpus).toEqual([
      {
        index: 0,
        name: 'AMD GPU card0',
        vendor: 'amd',
        tool: 'sysfs',
        memoryTotalBytes: 103_079_215_104,
      },
    ]);
  });
});

describe('readSysfsDrm on made-up trees', () => {
  let root: string;

  beforeEach(() => {
    root = tempDir('tradelab-drm-');
  });
  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  /** Writes `cardDir/device/<file>` for each entry. */
  function card(dir: string, files: Record<string, string>): void {
    const device = join(root, dir, 'device');
    mkdirSync(device, { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(device, file), text);
  }

  it('ignores connector entries such as card1-DP-2 and renderD128', () => {
    card('card1', { vendor: '0x1002\n', device: '0x744c\n', mem_info_vram_total: '21458059264\n' });
    // Connector directories carry a device/ of their own in some trees: they must still be skipped.
    card('card1-DP-2', { vendor: '0x1002\n', mem_info_vram_total: '21458059264\n' });
    card('card1-HDMI-A-1', { vendor: '0x1002\n', mem_info_vram_total: '21458059264\n' });
    card('renderD128', { vendor: '0x1002\n', mem_info_vram_total: '21458059264\n' });
    writeFileSync(join(root, 'version'), 'drm 1.1.0 20060810\n');
    const parsed = readSysfsDrm(root);
    expect(parsed.gpus.map((g) => [g.index, g.name])).toEqual([
      [1, 'AMD Radeon RX 7900 XT/7900 XTX/7900 GRE (Navi 31)'],
    ]);
    expect(parsed.warnings).toEqual([]);
  });

  it('ignores cards of other vendors and AMD cards without VRAM figures', () => {
    card('card0', { vendor: '0x10de\n', device: '0x2684\n', mem_info_vram_total: '25757220864\n' });
    card('card1', { vendor: '0x8086\n', device: '0xa780\n' });
    card('card2', { vendor: '0x1002\n', device: '0x744c\n' });
    card('card3', { device: '0x744c\n', mem_info_vram_total: '21458059264\n' });
    expect(readSysfsDrm(root)).toEqual({ gpus: [], warnings: [] });
  });

  it('orders cards by number, not by name', () => {
    for (const n of [10, 2, 1]) {
      card(`card${n}`, { vendor: '0x1002\n', mem_info_vram_total: `${n * 1024}\n` });
    }
    expect(readSysfsDrm(root).gpus.map((g) => g.index)).toEqual([1, 2, 10]);
  });

  it('prefers product_name, and names known device ids', () => {
    card('card0', {
      vendor: '0x1002\n',
      device: '0x74a1\n',
      product_name: 'AMD Instinct MI300X OAM\n',
      mem_info_vram_total: '206141652992\n',
    });
    card('card1', {
      vendor: '0x1002\n',
      device: '0x74a1\n',
      mem_info_vram_total: '206141652992\n',
    });
    card('card2', {
      vendor: '0x1002\n',
      device: '0x74b5\n',
      mem_info_vram_total: '205822885888\n',
    });
    expect(readSysfsDrm(root).gpus.map((g) => g.name)).toEqual([
      'AMD Instinct MI300X OAM',
      'AMD Instinct MI300X',
      'AMD Instinct MI300X VF',
    ]);
  });

  it('falls back to the device id when product_name is empty (consumer cards)', () => {
    // The kernel docs: product_name is "only available for certain server cards"; it can be empty.
    card('card0', {
      vendor: '0x1002\n',
      device: '0x744c\n',
      product_name: '\n',
      mem_info_vram_total: '21458059264\n',
    });
    expect(readSysfsDrm(root).gpus[0]?.name).toBe(
      'AMD Radeon RX 7900 XT/7900 XTX/7900 GRE (Navi 31)',
    );
  });

  it('warns about a VRAM total that is not a byte count', () => {
    card('card0', { vendor: '0x1002\n', mem_info_vram_total: 'garbage\n' });
    card('card1', { vendor: '0x1002\n', mem_info_vram_total: '0\n' });
    card('card2', { vendor: '0x1002\n', mem_info_vram_total: '8573157376\n' });
    const parsed = readSysfsDrm(root);
    expect(parsed.gpus.map((g) => g.index)).toEqual([2]);
    expect(parsed.warnings).toEqual([
      'card0: mem_info_vram_total is not a byte count: "garbage"',
      'card1: mem_info_vram_total is not a byte count: "0"',
    ]);
  });

  it('returns no GPUs for an empty directory', () => {
    expect(readSysfsDrm(root)).toEqual({ gpus: [], warnings: [] });
  });

  it('returns no GPUs, and no error, when the directory does not exist', () => {
    expect(readSysfsDrm(join(root, 'no', 'such', 'dir'))).toEqual({ gpus: [], warnings: [] });
  });
});

describe('DEFAULT_DRM_ROOT', () => {
  it('is where the kernel lists DRM devices', () => {
    expect(DEFAULT_DRM_ROOT).toBe('/sys/class/drm');
  });
});
