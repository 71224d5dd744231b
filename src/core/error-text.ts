/*
 * What an error says, for a message built around it ("a trial worker failed: …"). `new Error()`
 * and `throw ''` say nothing, and a message then ends at its colon: the user learns neither what
 * failed nor where. So an empty message says what was thrown and where.
 */

/** What a thrown value that is not an Error (or has no message) was, in words. */
function describeValue(value: unknown): string {
  if (value === '') return 'an empty string';
  if (value === undefined || value === null || typeof value !== 'object') return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    // A cycle or a BigInt: JSON cannot say it; its kind is all there is.
    return Object.prototype.toString.call(value);
  }
}

/**
 * The text of `error` for a message, never empty: its message; else, for an Error with none, its
 * name and the line that threw it; else what was thrown.
 */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    if (error.message.trim() !== '') return error.message;
    const frame = error.stack
      ?.split('\n')
      .map((line) => line.trim())
      .find((line) => line.startsWith('at '));
    return `${error.name} with no message${frame === undefined ? '' : `, thrown ${frame}`}`;
  }
  if (typeof error === 'string' && error.trim() !== '') return error;
  return `${describeValue(error)} was thrown, not an Error with a message`;
}
