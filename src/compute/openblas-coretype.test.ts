import { describe, expect, it } from 'vitest';
import { openblasCoretypeFor } from './openblas-coretype.js';

const cpu = (vendor: string, flags: string): string =>
  `processor\t: 0\nvendor_id\t: ${vendor}\nflags\t\t: ${flags}\nbugs\t\t: spectre_v1\n`;

describe('openblasCoretypeFor', () => {
  it('picks SkylakeX only when all four AVX-512 subsets are there', () => {
    const base = 'fpu sse3 avx avx2 fma avx512f avx512dq avx512bw';
    expect(openblasCoretypeFor(cpu('GenuineIntel', `${base} avx512vl`))).toBe('SkylakeX');
    expect(openblasCoretypeFor(cpu('GenuineIntel', base))).toBe('Haswell');
    expect(openblasCoretypeFor(cpu('AuthenticAMD', `${base} avx512vl`))).toBe('SkylakeX');
  });

  it('picks Haswell, Zen or Sandybridge from AVX2/FMA and AVX', () => {
    expect(openblasCoretypeFor(cpu('GenuineIntel', 'sse3 avx avx2 fma'))).toBe('Haswell');
    expect(openblasCoretypeFor(cpu('AuthenticAMD', 'sse3 avx avx2 fma'))).toBe('Zen');
    expect(openblasCoretypeFor(cpu('GenuineIntel', 'sse3 avx'))).toBe('Sandybridge');
    // avx2 without fma is not enough for the Haswell kernels
    expect(openblasCoretypeFor(cpu('GenuineIntel', 'sse3 avx avx2'))).toBe('Sandybridge');
  });

  it('leaves detection to OpenBLAS without AVX or on non-x86 CPUs', () => {
    expect(openblasCoretypeFor(cpu('GenuineIntel', 'fpu sse sse2 sse3'))).toBeUndefined();
    expect(openblasCoretypeFor('processor\t: 0\nFeatures\t: fp asimd evtstrm\n')).toBeUndefined();
    expect(openblasCoretypeFor('')).toBeUndefined();
  });
});
