/** Edit distance between two strings (Levenshtein), for "did you mean" suggestions. */
export function editDistance(a: string, b: string): number {
  const previous = new Array<number>(b.length + 1);
  const current = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    for (let j = 0; j <= b.length; j++) previous[j] = current[j] ?? 0;
  }
  return previous[b.length] ?? 0;
}

/**
 * The candidate closest to `input`, or undefined when none is close enough to be a plausible typo
 * (distance at most a third of the longer string, at least 2).
 */
export function closestMatch(input: string, candidates: readonly string[]): string | undefined {
  const needle = input.toLowerCase();
  if (needle === '') return undefined;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const hay = candidate.toLowerCase();
    const distance =
      hay.startsWith(needle) || needle.startsWith(hay) ? 1 : editDistance(needle, hay);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best === undefined) return undefined;
  const limit = Math.max(2, Math.ceil(Math.max(needle.length, best.length) / 3));
  return bestDistance <= limit ? best : undefined;
}
