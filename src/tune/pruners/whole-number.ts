import { TradelabError } from '../../core/index.js';

/**
 * Checks a pruner option that must be a whole number of at least `min`; `alternative` names any
 * other allowed value for the message (e.g. "or 'auto'").
 * @throws TradelabError INVALID_ARGUMENT naming the option, the bad value and the fix.
 */
export function wholeNumber(name: string, value: number, min: number, alternative = ''): number {
  if (!Number.isInteger(value) || value < min) {
    const allowed = `a whole number of at least ${min}${alternative === '' ? '' : ` ${alternative}`}`;
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `pruner option ${name} must be ${allowed}, got ${String(value)}`,
      { hint: `Set ${name} to ${min} or more, or leave it out for the default.` },
    );
  }
  return value;
}
