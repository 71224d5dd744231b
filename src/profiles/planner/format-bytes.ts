/** 2^30: GPU memory is sized in binary units. */
export const GIB = 1024 ** 3;
/** 2^20. */
export const MIB = 1024 ** 2;

/** Bytes as GiB or MiB with sensible precision: "2.41 GiB", "68.7 MiB", "512 B". */
export function formatBytes(bytes: number): string {
  if (bytes >= GIB) return `${(bytes / GIB).toFixed(2)} GiB`;
  if (bytes >= MIB) return `${(bytes / MIB).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${Math.round(bytes)} B`;
}

/** An integer with thousands separators: 17,154,058. */
export function formatCount(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}
