import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AMD_SMI_ARGS, parseAmdSmiStatic } from './parse-amd-smi.js';

const FIXTURES = new URL('../../../test/fixtures/detect/', import.meta.url);
const MIB = 2 ** 20;

function fixture(name: string): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8');
}

/** One amd-smi GPU object with the given `vram` section. */
function withVram(vram: unknown, gpu = 0): Record<string, unknown> {
  return { gpu, asic: { market_name: 'AMD Instinct MI300X' }, vram };
}

describe('AMD_SMI_ARGS', () => {
  it('asks for the static report as JSON', () => {
    expect(AMD_SMI_ARGS).toEqual(['static', '--json']);
  });
});

describe('parseAmdSmiStatic on recorded output', () => {
  it('reads the MI300X list (ROCm 6.1-6.4 shape), MB being MiB', () => {
    expect(parseAmdSmiStatic(fixture('amd-smi-static-list.json'))).toEqual({
      gpus: [
        {
          index: 0,
          name: 'MI300X-O',
          vendor: 'amd',
          tool: 'amd-smi',
          memoryTotalBytes: 196592 * MIB,
        },
      ],
      warnings: [],
    });
    // The bare-metal MI300X's mem_info_vram_total, as sysfs and rocm-smi report it.
    expect(parseAmdSmiStatic(fixture('amd-smi-static-list.json')).gpus[0]?.memoryTotalBytes).toBe(
      206_141_652_992,
    );
  });

  it('reads the {"gpu_data": [...]} shape (ROCm 7)', () => {
    expect(parseAmdSmiStatic(fixture('amd-smi-static-gpu-data.json'))).toEqual({
      gpus: [
        {
          index: 0,
          name: 'AMD Radeon RX 7800 XT',
          vendor: 'amd',
          tool: 'amd-smi',
          memoryTotalBytes: 16368 * MIB,
        },
      ],
      warnings: [],
    });
  });

  it('skips a WARNING line printed before the JSON, and warns that vram is missing', () => {
    expect(parseAmdSmiStatic(fixture('amd-smi-static-warning.txt'))).toEqual({
      gpus: [{ index: 0, name: 'Granite Ridge [Radeon Graphics]', vendor: 'amd', tool: 'amd-smi' }],
      warnings: ['GPU 0: vram.size not reported'],
    });
  });

  it('reads an --asic-only list the same way as the warning-prefixed one', () => {
    expect(parseAmdSmiStatic(fixture('amd-smi-static-asic-list.json'))).toEqual(
      parseAmdSmiStatic(fixture('amd-smi-static-warning.txt')),
    );
  });

  it('skips Python SyntaxWarning lines (indented source lines too)', () => {
    expect(parseAmdSmiStatic(fixture('amd-smi-static-gpu-data-pywarnings.txt'))).toEqual({
      gpus: [{ index: 0, name: 'AMD Radeon RX 7800 XT', vendor: 'amd', tool: 'amd-smi' }],
      warnings: ['GPU 0: vram.size not reported'],
    });
  });

  it('throws on the ROCm 7 group error and the driver-not-initialized text', () => {
    expect(() => parseAmdSmiStatic(fixture('amd-smi-group-error-rocm7.txt'))).toThrow(
      /^no JSON in output: RuntimeError: WARNING: User is missing/,
    );
    expect(() => parseAmdSmiStatic(fixture('amd-smi-driver-not-initialized.txt'))).toThrow(
      /^no JSON in output: ERROR:root:Unable to get devices/,
    );
  });
});

describe('parseAmdSmiStatic shapes and vram forms', () => {
  it('reads a bare single object (ROCm 6.0) with vram.vram_size_mb', () => {
    const text = JSON.stringify(
      {
        gpu: 0,
        asic: { market_name: 'AMD Instinct MI300X', device_id: '0x74a1' },
        vram: { vram_type: 'HBM', vram_vendor: 'N/A', vram_size_mb: 196592 },
      },
      null,
      4,
    );
    expect(parseAmdSmiStatic(text)).toEqual({
      gpus: [
        {
          index: 0,
          name: 'AMD Instinct MI300X',
          vendor: 'amd',
          tool: 'amd-smi',
          memoryTotalBytes: 196592 * MIB,
        },
      ],
      warnings: [],
    });
  });

  it('reads vram.size as a number of MB and as a "196592 MB" string', () => {
    const text = JSON.stringify([
      withVram({ size: 196592 }, 0),
      withVram({ size: '196592 MB' }, 1),
    ]);
    const parsed = parseAmdSmiStatic(text);
    expect(parsed.warnings).toEqual([]);
    expect(parsed.gpus.map((g) => g.memoryTotalBytes)).toEqual([196592 * MIB, 196592 * MIB]);
  });

  it('honours the unit of {value, unit}', () => {
    const text = JSON.stringify([
      withVram({ size: { value: 192, unit: 'GB' } }, 0),
      withVram({ size: { value: '16368', unit: 'MB' } }, 1),
    ]);
    expect(parseAmdSmiStatic(text).gpus.map((g) => g.memoryTotalBytes)).toEqual([
      192 * 1024 * MIB,
      16368 * MIB,
    ]);
  });

  it('leaves memory out with a warning when vram.size is "N/A"', () => {
    const parsed = parseAmdSmiStatic(JSON.stringify([withVram({ type: 'HBM', size: 'N/A' })]));
    expect(parsed.gpus).toHaveLength(1);
    expect(parsed.gpus[0]).not.toHaveProperty('memoryTotalBytes');
    expect(parsed.warnings).toEqual(['GPU 0: vram.size not reported']);
  });

  it('leaves memory out with a warning for an unknown unit', () => {
    const parsed = parseAmdSmiStatic(
      JSON.stringify([withVram({ size: { value: 5, unit: 'PB' } })]),
    );
    expect(parsed.gpus[0]).not.toHaveProperty('memoryTotalBytes');
    expect(parsed.warnings).toEqual(['GPU 0: vram.size not reported']);
  });

  it('takes board.product_name when asic.market_name is N/A', () => {
    const text = JSON.stringify([
      {
        gpu: 3,
        asic: { market_name: 'N/A' },
        board: { product_name: 'AMD Instinct MI300X OAM' },
        vram: { size: { value: 196592, unit: 'MB' } },
      },
    ]);
    expect(parseAmdSmiStatic(text).gpus).toEqual([
      {
        index: 3,
        name: 'AMD Instinct MI300X OAM',
        vendor: 'amd',
        tool: 'amd-smi',
        memoryTotalBytes: 196592 * MIB,
      },
    ]);
  });

  it('uses the list position when "gpu" is missing', () => {
    const text = JSON.stringify([
      { asic: { market_name: 'A' }, vram: { size: 1 } },
      { asic: { market_name: 'B' }, vram: { size: 2 } },
    ]);
    expect(parseAmdSmiStatic(text).gpus.map((g) => [g.index, g.name])).toEqual([
      [0, 'A'],
      [1, 'B'],
    ]);
  });

  it('warns about entries without a name or not objects, and keeps the rest', () => {
    const text = JSON.stringify([
      { gpu: 0, asic: { market_name: 'N/A' }, board: { product_name: 'N/A' } },
      42,
      withVram({ size: 8 }, 2),
    ]);
    const parsed = parseAmdSmiStatic(text);
    expect(parsed.gpus.map((g) => g.index)).toEqual([2]);
    expect(parsed.warnings).toEqual([
      'GPU 0: no asic.market_name or board.product_name',
      'entry 1: not an object',
    ]);
  });

  it('throws on an empty list, and on JSON of another shape', () => {
    expect(() => parseAmdSmiStatic('[]')).toThrow('the GPU list is empty');
    expect(() => parseAmdSmiStatic('{"gpu_data": []}')).toThrow('the GPU list is empty');
    expect(() => parseAmdSmiStatic('{"cpu_data": []}')).toThrow(
      'expected a JSON list of GPUs or {"gpu_data": [...]}',
    );
  });
});
