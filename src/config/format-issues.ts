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

/** Shows a bad value compactly in a message (one typed on the command line: never a file's). */
export function showValue(value: unknown): string {
  if (value === undefined) return '(missing)';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * What kind of value `value` is, in the words of YAML and JSON (`a string`, `a number`, `a list`,
 * `a mapping`): what a message says of a value read from a file instead of quoting it.
 */
export function kindOf(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `a ${typeof value}`;
}

/** The kind zod expected, in the words of {@link kindOf}. */
function expectedKind(expected: string): string {
  if (expected === 'object' || expected === 'record' || expected === 'map') return 'a mapping';
  if (expected === 'array' || expected === 'tuple' || expected === 'set') return 'a list';
  return `a ${expected}`;
}

/**
 * One readable line per zod issue of a file: the key path, the kind of value found, and what is
 * allowed. The value itself is never quoted: a file given in the wrong place (`.env` as a
 * campaign file) would have its secrets copied into the message, and from there into a job's log;
 * the file:line:col in front of the line points at it instead.
 */
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
  if (issue.code === 'invalid_type' && value === undefined)
    return { path, at: 'value', text: `${formatKeyPath(path)}: is required` };
  if (issue.code === 'invalid_type')
    return {
      path,
      at: 'value',
      text: `${formatKeyPath(path)}: expected ${expectedKind(issue.expected)}, found ${kindOf(value)}`,
    };
  return {
    path,
    at: 'value',
    text: `${formatKeyPath(path)}: ${kindOf(value).replace(/^an? /, 'this ')} is not allowed: ${issue.message}`,
  };
}
