/*
 * JSON encodings of the record fields that JSON cannot hold as is. Intermediate values may be NaN
 * or infinite (a diverged epoch is still a report), which JSON would turn into null.
 */

/** `{step: value}` with non-finite values as the strings "NaN", "Infinity", "-Infinity". */
export function encodeIntermediate(values: Record<number, number>): string {
  const out: Record<string, number | string> = {};
  for (const [step, value] of Object.entries(values))
    out[step] = Number.isFinite(value) ? value : String(value);
  return JSON.stringify(out);
}

/** The inverse of {@link encodeIntermediate} (accepts the parsed object too). */
export function decodeIntermediate(json: string | Record<string, unknown>): Record<number, number> {
  const raw = typeof json === 'string' ? (JSON.parse(json) as Record<string, unknown>) : json;
  const out: Record<number, number> = {};
  for (const [step, value] of Object.entries(raw)) out[Number(step)] = Number(value);
  return out;
}
