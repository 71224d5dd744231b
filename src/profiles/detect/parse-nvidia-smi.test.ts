import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NVIDIA_SMI_ARGS, parseNvidiaSmiCsv } from './parse-nvidia-smi.js';

const FIXTURES = new URL('../../../test/fixtures/detect/', import.meta.url);
const MIB = 2 ** 20;

function fixture(name: string): string {
  return readFileSync(new URL(name, FIXTURES), 'utf8');
}

describe('NVIDIA_SMI_ARGS', () => {
  it('asks for the eight fields the parser reads, without header or units', () => {
    expect(NVIDIA_SMI_ARGS).toEqual([
      '--query-gpu=index,uuid,name,memory.total,memory.used,utilization.gpu,clocks.sm,power.draw',
      '--format=csv,noheader,nounits',
    ]);
  });
});

describe('parseNvidiaSmiCsv on recorded output of our query', () => {
  it('reads a single H100 SXM', () => {
    const parsed = parseNvidiaSmiCsv(fixture('nvidia-smi-h100-single.txt'));
    expect(parsed.warnings).toEqual([]);
    expect(parsed.gpus).toEqual([
      {
        index: 0,
        uuid: 'GPU-b42dd28e-ffdd-8720-1df0-98bd8cdc05b1',
        name: 'NVIDIA H100 80GB HBM3',
        vendor: 'nvidia',
        tool: 'nvidia-smi',
        memoryTotalBytes: 81559 * MIB,
        memoryUsedBytes: 1 * MIB,
        utilizationPct: 0,
        smClockMHz: 345,
        powerW: 100.89,
      },
    ]);
    expect(parsed.gpus[0]?.memoryTotalBytes).toBe(85_520_809_984);
  });

  it('reads a single RTX 4090', () => {
    const parsed = parseNvidiaSmiCsv(fixture('nvidia-smi-4090-single.txt'));
    expect(parsed.warnings).toEqual([]);
    expect(parsed.gpus).toEqual([
      {
        index: 0,
        uuid: 'GPU-8ee5f1e0-e705-aac5-6d6e-b97ad59601ef',
        name: 'NVIDIA GeForce RTX 4090',
        vendor: 'nvidia',
        tool: 'nvidia-smi',
        memoryTotalBytes: 24564 * MIB,
        memoryUsedBytes: 2 * MIB,
        utilizationPct: 0,
        smClockMHz: 210,
        powerW: 20,
      },
    ]);
  });

  it('reads two H100 NVL cards in order, each with its own index and uuid', () => {
    const parsed = parseNvidiaSmiCsv(fixture('nvidia-smi-h100nvl-multi.txt'));
    expect(parsed.warnings).toEqual([]);
    expect(parsed.gpus).toEqual([
      {
        index: 0,
        uuid: 'GPU-806f8ea2-6428-1096-a076-bb687fb45fb0',
        name: 'NVIDIA H100 NVL',
        vendor: 'nvidia',
        tool: 'nvidia-smi',
        memoryTotalBytes: 95830 * MIB,
        memoryUsedBytes: 0,
        utilizationPct: 0,
        smClockMHz: 345,
        powerW: 61.62,
      },
      {
        index: 1,
        uuid: 'GPU-db6d02a2-1413-eccf-8a17-d99eac29d365',
        name: 'NVIDIA H100 NVL',
        vendor: 'nvidia',
        tool: 'nvidia-smi',
        memoryTotalBytes: 95830 * MIB,
        memoryUsedBytes: 0,
        utilizationPct: 0,
        smClockMHz: 345,
        powerW: 62.11,
      },
    ]);
  });

  it('accepts CRLF line ends and a trailing blank line', () => {
    const text = fixture('nvidia-smi-h100nvl-multi.txt').replace(/\n/g, '\r\n') + '\r\n';
    const parsed = parseNvidiaSmiCsv(text);
    expect(parsed.gpus.map((g) => g.index)).toEqual([0, 1]);
    expect(parsed.warnings).toEqual([]);
  });

  it('skips a header row of our own query (a user alias may drop noheader)', () => {
    const text =
      'index, uuid, name, memory.total [MiB], memory.used [MiB], utilization.gpu [%], clocks.sm [MHz], power.draw [W]\n' +
      fixture('nvidia-smi-4090-single.txt');
    const parsed = parseNvidiaSmiCsv(text);
    expect(parsed.warnings).toEqual([]);
    expect(parsed.gpus).toHaveLength(1);
    expect(parsed.gpus[0]?.name).toBe('NVIDIA GeForce RTX 4090');
  });

  it('returns nothing, without throwing, for empty output', () => {
    expect(parseNvidiaSmiCsv('')).toEqual({ gpus: [], warnings: [] });
    expect(parseNvidiaSmiCsv('\n  \n')).toEqual({ gpus: [], warnings: [] });
  });
});

describe('parseNvidiaSmiCsv with unreadable fields', () => {
  const cases = [
    {
      marker: '[N/A]',
      line: '0, GPU-aaaa, NVIDIA GB10, [N/A], [N/A], 3, 2405, 11.23',
      absent: ['memoryTotalBytes', 'memoryUsedBytes'],
      warnings: ['GPU 0: memory.total reads [N/A]', 'GPU 0: memory.used reads [N/A]'],
    },
    {
      marker: '[Not Supported]',
      line: '0, GPU-bbbb, NVIDIA GeForce GTX 770, 2048, 100, [Not Supported], 1058, [Not Supported]',
      absent: ['utilizationPct', 'powerW'],
      warnings: [
        'GPU 0: utilization.gpu reads [Not Supported]',
        'GPU 0: power.draw reads [Not Supported]',
      ],
    },
    {
      marker: '[Unknown Error]',
      line: '0, GPU-cccc, NVIDIA GeForce RTX 2080 Ti, 11264, 512, 100, 1560, [Unknown Error]',
      absent: ['powerW'],
      warnings: ['GPU 0: power.draw reads [Unknown Error]'],
    },
    {
      marker: '[Insufficient Permissions]',
      line: '0, GPU-dddd, NVIDIA A100-SXM4-80GB, [Insufficient Permissions], [Insufficient Permissions], [N/A], 1410, 65.00',
      absent: ['memoryTotalBytes', 'memoryUsedBytes', 'utilizationPct'],
      warnings: [
        'GPU 0: memory.total reads [Insufficient Permissions]',
        'GPU 0: memory.used reads [Insufficient Permissions]',
        'GPU 0: utilization.gpu reads [N/A]',
      ],
    },
  ] as const;

  for (const c of cases) {
    it(`leaves out ${c.marker} fields with a warning and keeps the rest`, () => {
      const parsed = parseNvidiaSmiCsv(c.line);
      expect(parsed.gpus).toHaveLength(1);
      const gpu = parsed.gpus[0];
      expect(gpu?.index).toBe(0);
      expect(gpu?.vendor).toBe('nvidia');
      for (const field of c.absent) expect(gpu).not.toHaveProperty(field);
      expect(parsed.warnings).toEqual(c.warnings);
    });
  }

  it('keeps the readable numbers next to unreadable ones', () => {
    const parsed = parseNvidiaSmiCsv(
      '0, GPU-aaaa, NVIDIA A100-SXM4-80GB, 81920, [Insufficient Permissions], 7, 1410, [N/A]',
    );
    expect(parsed.gpus).toEqual([
      {
        index: 0,
        uuid: 'GPU-aaaa',
        name: 'NVIDIA A100-SXM4-80GB',
        vendor: 'nvidia',
        tool: 'nvidia-smi',
        memoryTotalBytes: 81920 * MIB,
        utilizationPct: 7,
        smClockMHz: 1410,
      },
    ]);
    expect(parsed.warnings).toHaveLength(2);
  });

  it('leaves out an unreadable uuid', () => {
    const parsed = parseNvidiaSmiCsv('0, [N/A], NVIDIA L40S, 46068, 0, 0, 210, 35.10');
    expect(parsed.gpus[0]).not.toHaveProperty('uuid');
    expect(parsed.gpus[0]?.memoryTotalBytes).toBe(46068 * MIB);
  });

  it('warns about a value that is not a number', () => {
    const parsed = parseNvidiaSmiCsv('0, GPU-aaaa, NVIDIA L40S, lots, 0, 0, 210, 35.10');
    expect(parsed.gpus[0]).not.toHaveProperty('memoryTotalBytes');
    expect(parsed.warnings).toEqual(['GPU 0: memory.total is not a number: lots']);
  });

  it('skips a record whose index or name is unreadable', () => {
    const parsed = parseNvidiaSmiCsv(
      [
        '[N/A], GPU-aaaa, NVIDIA L40S, 46068, 0, 0, 210, 35.10',
        '1, GPU-bbbb, [Unknown Error], 46068, 0, 0, 210, 35.10',
        '2, GPU-cccc, NVIDIA L40S, 46068, 0, 0, 210, 35.10',
      ].join('\n'),
    );
    expect(parsed.gpus.map((g) => g.index)).toEqual([2]);
    expect(parsed.warnings).toHaveLength(2);
    expect(parsed.warnings[0]).toMatch(/^line 1: no GPU index or name/);
    expect(parsed.warnings[1]).toMatch(/^line 2: no GPU index or name/);
  });
});

describe('parseNvidiaSmiCsv with units (a user alias without nounits)', () => {
  it('reads MiB, %, MHz and W suffixes', () => {
    const parsed = parseNvidiaSmiCsv(
      '0, GPU-8ee5f1e0, NVIDIA GeForce RTX 4090, 24564 MiB, 2 MiB, 13 %, 210 MHz, 20.00 W',
    );
    expect(parsed.warnings).toEqual([]);
    expect(parsed.gpus[0]).toMatchObject({
      memoryTotalBytes: 24564 * MIB,
      memoryUsedBytes: 2 * MIB,
      utilizationPct: 13,
      smClockMHz: 210,
      powerW: 20,
    });
  });
});

describe('parseNvidiaSmiCsv with a malformed line among good ones', () => {
  it('warns about the line with the wrong field count and keeps the others', () => {
    const h100 = fixture('nvidia-smi-h100nvl-multi.txt').trim().split('\n');
    const text = [
      h100[0],
      'Unable to determine the device handle for GPU0000:17:00.0: Unknown Error',
      h100[1],
    ].join('\n');
    const parsed = parseNvidiaSmiCsv(text);
    expect(parsed.gpus.map((g) => g.index)).toEqual([0, 1]);
    expect(parsed.warnings).toEqual([
      'line 2: expected 8 fields, found 1: Unable to determine the device handle for GPU0000:17:00.0: Unknown Error',
    ]);
  });

  it('clips a long malformed line in its warning', () => {
    const long = `x,${'y'.repeat(200)}`;
    const parsed = parseNvidiaSmiCsv(`${long}\n${fixture('nvidia-smi-4090-single.txt')}`);
    expect(parsed.gpus).toHaveLength(1);
    const warning = parsed.warnings[0] ?? '';
    expect(warning.startsWith('line 1: expected 8 fields, found 2: ')).toBe(true);
    expect(warning.endsWith('...')).toBe(true);
    expect(warning.length).toBeLessThan(long.length);
  });
});

describe('parseNvidiaSmiCsv on output of other queries and error text', () => {
  const otherQueries = [
    'nvidia-smi-titanx-8gpu.txt',
    'nvidia-smi-4080super-multi-units.txt',
    'nvidia-smi-h200-header.txt',
    'nvidia-smi-4090-header-row.txt',
    'nvidia-smi-a100-mixed-header.txt',
    'nvidia-smi-5090-header.txt',
    'nvidia-smi-h100nvl-header.txt',
    'nvidia-smi-quadro-rtx6000-multi.txt',
    'nvidia-smi-h100nvl-deviceid.txt',
    'nvidia-smi-na-fields.txt',
    'nvidia-smi-not-supported-fields.txt',
    'nvidia-smi-gtx770-not-supported.txt',
    'nvidia-smi-unknown-error.txt',
    'nvidia-smi-insufficient-permissions.txt',
    'nvidia-smi-rtx3080-many-na.txt',
    'nvidia-smi-gb10-unified-na.txt',
  ];
  for (const name of otherQueries) {
    it(`throws on ${name} (another field list)`, () => {
      expect(() => parseNvidiaSmiCsv(fixture(name))).toThrow(/^no GPU records in output: /);
    });
  }

  const errorTexts = [
    'nvidia-smi-driver-failed.txt',
    'nvidia-smi-no-devices.txt',
    'nvidia-smi-nvml-version-mismatch.txt',
    'nvidia-smi-nvml-unknown-error.txt',
    'nvidia-smi-no-supported-gpus.txt',
    'nvidia-smi-device-handle-error.txt',
    'nvidia-smi-device-handle-error-legacy.txt',
  ];
  for (const name of errorTexts) {
    it(`throws on ${name} (error text), quoting its first line`, () => {
      const text = fixture(name);
      const first = text.split('\n')[0] ?? '';
      expect(() => parseNvidiaSmiCsv(text)).toThrow(first.slice(0, 60));
    });
  }
});
