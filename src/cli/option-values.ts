import { TradelabError } from '../core/index.js';

/** A whole-number option, checked against a minimum; undefined when not given. */
export function intOption(
  options: Readonly<Record<string, string | boolean | undefined>>,
  name: string,
  min = 1,
): number | undefined {
  const raw = options[name];
  if (raw === undefined) return undefined;
  const text = String(raw).replace(/_/g, '');
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < min) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--${name}: ${JSON.stringify(raw)} is not allowed: expected a whole number >= ${min}`,
      {
        hint: `e.g. --${name} ${Math.max(min, 16)}`,
      },
    );
  }
  return value;
}

/** A string option restricted to some values; undefined when not given. */
export function choiceOption<T extends string>(
  options: Readonly<Record<string, string | boolean | undefined>>,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const raw = options[name];
  if (raw === undefined) return undefined;
  const value = String(raw);
  if (!(allowed as readonly string[]).includes(value)) {
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--${name}: ${JSON.stringify(value)} is not allowed: expected one of ${allowed.join(', ')}`,
      {
        hint: `e.g. --${name} ${allowed[0] ?? ''}`,
      },
    );
  }
  return value as T;
}

/** A `--name 1,16,256` option: positive whole numbers, comma-separated; undefined when absent. */
export function intListOption(
  raw: string | boolean | undefined,
  name: string,
  example: string,
): number[] | undefined {
  if (raw === undefined) return undefined;
  const values = String(raw)
    .split(',')
    .map((part) => Number(part.trim().replace(/_/g, '')));
  if (values.length === 0 || values.some((v) => !Number.isSafeInteger(v) || v < 1))
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--${name}: ${JSON.stringify(raw)} is not allowed: expected positive whole numbers separated by commas`,
      { hint: `e.g. --${name} ${example}` },
    );
  return values;
}

/** A decimal-number option in [min, max]; undefined when not given. */
export function numberOption(
  options: Readonly<Record<string, string | boolean | undefined>>,
  name: string,
  min: number,
  max: number,
  example: string,
): number | undefined {
  const raw = options[name];
  if (raw === undefined) return undefined;
  const text = String(raw).replace(/_/g, '');
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < min || value > max)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--${name}: ${JSON.stringify(raw)} is not allowed: expected a number in [${min}, ${max}]`,
      { hint: `e.g. --${name} ${example}` },
    );
  return value;
}
