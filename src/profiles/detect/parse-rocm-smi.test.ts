import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRocmSmiJson, ROCM_SMI_ARGS } from './parse-rocm-smi.js';

const FIXTURES = new URL('../../../test/fixtures/detect/', import.meta.url);

function fixture(name: string): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8');
}

const RX_7900_XT = {
  index: 0,
  name: 'Radeon RX 7900 XT',
  vendor: 'amd',
  tool: 'rocm-smi',
  memoryTotalBytes: 21_458_059_264,
  memoryUsedBytes: 27_856_896,
  utilizationPct: 0,
};

describe('ROCM_SMI_ARGS', () => {
  it('asks for the product name and VRAM as JSON', () => {
    expect(ROCM_SMI_ARGS).toEqual(['--showproductname', '--showmeminfo', 'vram', '--json']);
  });
});

describe('parseRocmSmiJson', () => {
  it('reads the RX 7900 XT capture (pretty-printed)', () => {
    expect(parseRocmSmiJson(fixture('rocm-smi-7900xt.json'))).toEqual({
      gpus: [RX_7900_XT],
      warnings: [],
    });
  });

  it('reads the same data on one line, as rocm-smi prints it', () => {
    expect(parseRocmSmiJson(fixture('rocm-smi-7900xt-oneline.json'))).toEqual({
      gpus: [RX_7900_XT],
      warnings: [],
    });
  });

  it('reads four MI300X VFs without memory, warning once per card', () => {
    const parsed = parseRocmSmiJson(fixture('rocm-smi-mi300x-vf-4gpu-productname.json'));
    expect(parsed.gpus.map((g) => [g.index, g.name])).toEqual([
      [0, 'AMD Instinct MI300X VF'],
      [1, 'AMD Instinct MI300X VF'],
      [2, 'AMD Instinct MI300X VF'],
      [3, 'AMD Instinct MI300X VF'],
    ]);
    for (const gpu of parsed.gpus) {
      expect(gpu.vendor).toBe('amd');
      expect(gpu.tool).toBe('rocm-smi');
      expect(gpu).not.toHaveProperty('memoryTotalBytes');
      expect(gpu).not.toHaveProperty('memoryUsedBytes');
    }
    expect(parsed.warnings).toEqual([
      'card0: VRAM total not reported',
      'card1: VRAM total not reported',
      'card2: VRAM total not reported',
      'card3: VRAM total not reported',
    ]);
  });

  it('reads the card name under the old lowercase "Card series" key (ROCm 6.0 and older)', () => {
    const text = JSON.stringify({
      card0: {
        'VRAM Total Memory (B)': '34342961152',
        'VRAM Total Used Memory (B)': '7028736',
        'Card series': 'Arcturus GL-XL [Instinct MI100]',
        'Card model': '0x0c34',
        'Card vendor': 'Advanced Micro Devices, Inc. [AMD/ATI]',
        'Card SKU': 'D3430401',
      },
    });
    expect(parseRocmSmiJson(text)).toEqual({
      gpus: [
        {
          index: 0,
          name: 'Arcturus GL-XL [Instinct MI100]',
          vendor: 'amd',
          tool: 'rocm-smi',
          memoryTotalBytes: 34_342_961_152,
          memoryUsedBytes: 7_028_736,
        },
      ],
      warnings: [],
    });
  });

  it('falls back to "Card Model", then "Card SKU", when the series is N/A', () => {
    const text = JSON.stringify({
      card0: { 'Card Series': 'N/A', 'Card Model': '0x744c', 'VRAM Total Memory (B)': '1024' },
      card1: { 'Card Series': '', 'Card SKU': 'D70401XT', 'VRAM Total Memory (B)': '2048' },
    });
    expect(parseRocmSmiJson(text).gpus.map((g) => [g.index, g.name])).toEqual([
      [0, '0x744c'],
      [1, 'D70401XT'],
    ]);
  });

  it('ignores a "system" key and reads card indices from the keys', () => {
    const text = JSON.stringify({
      system: { 'Driver version': '6.19.14.31400000' },
      card2: { 'Card Series': 'AMD Instinct MI300X', 'VRAM Total Memory (B)': '206141652992' },
      card7: { 'Card Series': 'AMD Instinct MI300X', 'VRAM Total Memory (B)': '206141652992' },
    });
    const parsed = parseRocmSmiJson(text);
    expect(parsed.warnings).toEqual([]);
    expect(parsed.gpus.map((g) => g.index)).toEqual([2, 7]);
    expect(parsed.gpus.every((g) => g.memoryTotalBytes === 206_141_652_992)).toBe(true);
  });

  it('skips lines printed before the JSON', () => {
    const text = [
      'WARNING: AMD GPU device(s) is/are in a low-power state. Check power control/runtime_status',
      '[W] some banner',
      fixture('rocm-smi-7900xt.json'),
    ].join('\n');
    expect(parseRocmSmiJson(text).gpus).toEqual([RX_7900_XT]);
  });

  it('warns about a card with no product name and keeps the named ones', () => {
    const text = JSON.stringify({
      card0: { 'VRAM Total Memory (B)': '205822885888' },
      card1: { 'Card Series': 'AMD Instinct MI300X VF', 'VRAM Total Memory (B)': '205822885888' },
      card2: 'oops',
    });
    const parsed = parseRocmSmiJson(text);
    expect(parsed.gpus.map((g) => g.index)).toEqual([1]);
    expect(parsed.warnings).toEqual([
      'card0: no product name (rocm-smi printed no "Card series")',
      'card2: not an object',
    ]);
  });

  it('reports only warnings, not GPUs, for output without product names', () => {
    const meminfo = parseRocmSmiJson(fixture('rocm-smi-mi300x-vf-meminfo.json'));
    expect(meminfo.gpus).toEqual([]);
    expect(meminfo.warnings).toHaveLength(1);
    const legacy = parseRocmSmiJson(fixture('rocm-smi-raw-oneline-legacy.json'));
    expect(legacy.gpus).toEqual([]);
    expect(legacy.warnings).toHaveLength(1);
  });

  it('ignores memory values that are not byte counts', () => {
    const text = JSON.stringify({
      card0: {
        'Card Series': 'Radeon RX 7900 XT',
        'VRAM Total Memory (B)': 'N/A',
        'VRAM Total Used Memory (B)': '-5',
      },
    });
    const parsed = parseRocmSmiJson(text);
    expect(parsed.gpus[0]).not.toHaveProperty('memoryTotalBytes');
    expect(parsed.gpus[0]).not.toHaveProperty('memoryUsedBytes');
    expect(parsed.warnings).toEqual(['card0: VRAM total not reported']);
  });

  it('throws on an object with no cards', () => {
    expect(() => parseRocmSmiJson('{}')).toThrow('no cards in the JSON');
    expect(() => parseRocmSmiJson('{"system": {"Driver version": "6.8.5"}}')).toThrow(
      'no cards in the JSON',
    );
  });

  it('throws on JSON that is not an object keyed by card', () => {
    expect(() => parseRocmSmiJson('["card0"]')).toThrow('expected a JSON object keyed by card');
  });

  it('throws on "No JSON data to report", quoting it', () => {
    expect(() => parseRocmSmiJson(fixture('rocm-smi-no-json-data.txt'))).toThrow(
      'no JSON in output: WARNING: No JSON data to report',
    );
  });

  it('throws on the driver-not-initialized text', () => {
    expect(() => parseRocmSmiJson(fixture('rocm-smi-driver-not-initialized.txt'))).toThrow(
      /^no JSON in output: cat: \/sys\/module\/amdgpu\/initstate/,
    );
  });

  it('throws on the text (non-JSON) form of the same query', () => {
    expect(() => parseRocmSmiJson(fixture('rocm-smi-mi300x-vf-4gpu-productname.txt'))).toThrow(
      /^no JSON in output: /,
    );
    expect(() => parseRocmSmiJson(fixture('rocm-smi-7900xt.csv'))).toThrow(/^no JSON in output: /);
  });

  it('throws on empty output', () => {
    expect(() => parseRocmSmiJson('')).toThrow('no JSON in output: (empty output)');
  });
});
