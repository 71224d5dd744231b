import { z } from 'zod';
import { closestMatch } from '../core/index.js';

/** Renders a key path the way a user writes it: `planner.safetyFactor`, `profiles.my_gpu.vramGb`. */
export function formatKeyPath(path: readonly PropertyKey[]): string {
  return (
    path
      .map((k) => (typeof k === 'number' ? `[${k}]` : String(k)))
      .join('.')
      .replace(/\.\[/g, '[') || '(top level)'
  );
}

/** The value found at a key path of plain data, if any. */
export function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/** The keys an object schema allows at a key path, for "known keys" and "did you mean" hints. */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = schema;
  for (const key of path) {
    current = unwrap(current);
    if (current instanceof z.ZodObject)
      current = (current.shape as Record<string, z.ZodType>)[String(key)];
    else if (current instanceof z.ZodRecord) current = current.valueType as z.ZodType;
    else return [];
    if (current === undefined) return [];
  }
  current = unwrap(current);
  return current instanceof z.ZodObject ? Object.keys(current.shape) : [];
}

function unwrap(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodNullable) {
    current = current.unwrap() as z.ZodType;
  }
  return current;
}

/** Shows a bad value compactly in a message. */
export function showValue(value: unknown): string {
  if (value === undefined) return '(missing)';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** One readable line per zod issue: the key path, the bad value, and what is allowed. */
export function describeIssue(
  issue: z.core.$ZodIssue,
  data: unknown,
  schema: z.ZodType,
  basePath: readonly PropertyKey[] = [],
): { path: PropertyKey[]; text: string; at: 'value' | 'key' } {
  const path = [...basePath, ...issue.path];
  if (issue.code === 'unrecognized_keys') {
    const known = knownKeysAt(schema, issue.path);
    const parts = issue.keys.map((key) => {
      const guess = closestMatch(key, known);
      return `unknown key "${key}"${guess === undefined ? '' : ` (did you mean "${guess}"?)`}`;
    });
    return {
      path: [...path, issue.keys[0] ?? ''],
      at: 'key',
      text: `${formatKeyPath(path)}: ${parts.join(', ')}; allowed here: ${known.join(', ')}`,
    };
  }
  if (issue.code === 'invalid_key') {
    const key = String(path[path.length - 1]);
    return {
      path,
      at: 'key',
      text: `${formatKeyPath(path.slice(0, -1))}: key ${JSON.stringify(key)} is not allowed: ${issue.issues[0]?.message ?? issue.message}`,
    };
  }
  const value = valueAt(data, issue.path);
  const message =
    issue.code === 'invalid_type' && value === undefined ? 'is required' : issue.message;
  if (message === 'is required')
    return { path, at: 'value', text: `${formatKeyPath(path)}: is required` };
  return {
    path,
    at: 'value',
    text: `${formatKeyPath(path)}: ${showValue(value)} is not allowed: ${message}`,
  };
}
