/**
 * Parses the JSON document in a tool's output, skipping lines printed before it (amd-smi and
 * rocm-smi print `WARNING: …` lines, Python warnings, or banners first). Throws when there is none.
 */
export function parseJsonAfterNoise(text: string): unknown {
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const start = lines[i]?.trimStart() ?? '';
    if (!start.startsWith('{') && !start.startsWith('[')) continue;
    try {
      return JSON.parse(lines.slice(i).join('\n')) as unknown;
    } catch {
      // Not the start of the document (e.g. "[W] …"): try the next candidate line.
    }
  }
  const first = lines.find((l) => l.trim() !== '') ?? '(empty output)';
  throw new Error(`no JSON in output: ${first.length > 80 ? `${first.slice(0, 77)}...` : first}`);
}

/** A case-insensitive lookup of a string-valued key in a JSON object. */
export function stringField(
  record: Record<string, unknown>,
  ...keys: string[]
): string | undefined {
  const wanted = keys.map((k) => k.toLowerCase());
  for (const [key, value] of Object.entries(record)) {
    if (
      wanted.includes(key.toLowerCase()) &&
      (typeof value === 'string' || typeof value === 'number')
    ) {
      const text = String(value).trim();
      if (text !== '' && text !== 'N/A') return text;
    }
  }
  return undefined;
}

/** Whether a value is a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
