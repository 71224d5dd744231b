/*
 * OpenBLAS picks its kernels at load time from CPUID family/model numbers. On CPUs it does not
 * know (new models, or a hypervisor that reports odd numbers) it falls back to "Prescott", SSE3
 * kernels several times slower than the AVX-512 ones the CPU runs. OPENBLAS_CORETYPE overrides
 * the detection; the instruction-set flags Linux reports in /proc/cpuinfo are a safe basis for
 * it, because the kernel only lists features the OS has enabled.
 */

/** A core type from the CPU's feature flags, or undefined when detection is best left to OpenBLAS. */
export function openblasCoretypeFor(cpuinfo: string): string | undefined {
  const flagsLine = /^flags\s*:(.*)$/m.exec(cpuinfo)?.[1];
  if (flagsLine === undefined) return undefined; // not x86 (e.g. aarch64 lists "Features")
  const flags = new Set(flagsLine.trim().split(/\s+/));
  const has = (...names: string[]): boolean => names.every((n) => flags.has(n));
  if (has('avx512f', 'avx512vl', 'avx512bw', 'avx512dq')) return 'SkylakeX';
  const amd = /^vendor_id\s*:\s*AuthenticAMD/m.test(cpuinfo);
  // OpenBLAS's Zen kernels are its Haswell ones with Zen-tuned block sizes.
  if (has('avx2', 'fma')) return amd ? 'Zen' : 'Haswell';
  if (has('avx')) return 'Sandybridge';
  return undefined;
}
