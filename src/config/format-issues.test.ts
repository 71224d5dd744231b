import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigFileSchema } from './config-schema.js';
import { describeIssue, formatKeyPath, knownKeysAt, showValue, valueAt } from './format-issues.js';

describe('formatKeyPath', () => {
  it('joins keys with dots', () => {
    expect(formatKeyPath(['planner', 'safetyFactor'])).toBe('planner.safetyFactor');
    expect(formatKeyPath(['profiles', 'my_gpu', 'vramGb'])).toBe('profiles.my_gpu.vramGb');
  });

  it('writes array indexes in brackets, without a dot before them', () => {
    expect(formatKeyPath(['profiles', 'my_gpu', 'match', 0])).toBe('profiles.my_gpu.match[0]');
    expect(formatKeyPath(['a', 1, 2, 'b'])).toBe('a[1][2].b');
    expect(formatKeyPath([3])).toBe('[3]');
  });

  it('names the top level when the path is empty', () => {
    expect(formatKeyPath([])).toBe('(top level)');
  });
});

describe('knownKeysAt', () => {
  it('lists the keys of the top-level object', () => {
    expect(knownKeysAt(ConfigFileSchema, []).sort()).toEqual(
      ['compute', 'detect', 'paths', 'planner', 'profile', 'profiles', 'profilesFile'].sort(),
    );
  });

  it('looks through optional wrappers into nested strict objects', () => {
    expect(knownKeysAt(ConfigFileSchema, ['planner'])).toEqual(['safetyFactor']);
    expect(knownKeysAt(ConfigFileSchema, ['detect']).sort()).toEqual(['enabled', 'timeoutMs']);
    expect(knownKeysAt(ConfigFileSchema, ['paths']).sort()).toEqual([
      'artifacts',
      'data',
      'runs',
      'storage',
    ]);
  });

  it('steps into a record with any key, to the value schema', () => {
    const keys = knownKeysAt(ConfigFileSchema, ['profiles', 'whatever_name']);
    expect(keys).toContain('extends');
    expect(keys).toContain('vramGb');
    expect(keys).toContain('workloads');
    expect(knownKeysAt(ConfigFileSchema, ['profiles', 'x', 'workloads']).sort()).toEqual([
      'drl',
      'forecast',
      'tcn',
    ]);
    expect(knownKeysAt(ConfigFileSchema, ['profiles', 'x', 'workloads', 'drl']).sort()).toEqual([
      'batchSize',
      'maxWorkers',
      'netDimMax',
      'source',
    ]);
  });

  it('gives nothing for a path that leaves the schema or ends at a scalar', () => {
    expect(knownKeysAt(ConfigFileSchema, ['nope'])).toEqual([]);
    expect(knownKeysAt(ConfigFileSchema, ['planner', 'safetyFactor'])).toEqual([]);
    expect(knownKeysAt(ConfigFileSchema, ['planner', 'safetyFactor', 'deeper'])).toEqual([]);
    expect(knownKeysAt(ConfigFileSchema, ['profile'])).toEqual([]);
  });

  it('handles nullable wrappers too', () => {
    const schema = z.object({ outer: z.object({ inner: z.number() }).nullable().optional() });
    expect(knownKeysAt(schema, ['outer'])).toEqual(['inner']);
  });
});

describe('showValue', () => {
  it('shows values as JSON, so strings are quoted', () => {
    expect(showValue(1.5)).toBe('1.5');
    expect(showValue('cuda')).toBe('"cuda"');
    expect(showValue(null)).toBe('null');
    expect(showValue({ a: [1, 2] })).toBe('{"a":[1,2]}');
  });

  it('says a missing value is missing', () => {
    expect(showValue(undefined)).toBe('(missing)');
  });

  it('clips long values to 60 characters, ending in an ellipsis', () => {
    const long = 'x'.repeat(100);
    const shown = showValue(long);
    expect(shown).toHaveLength(60);
    expect(shown.endsWith('...')).toBe(true);
    expect(shown.startsWith('"xxx')).toBe(true);
  });

  it('keeps a value of exactly 60 characters whole', () => {
    const exact = 'y'.repeat(58); // 58 characters plus two quotes
    expect(showValue(exact)).toBe(JSON.stringify(exact));
    expect(showValue('y'.repeat(59))).toHaveLength(60);
    expect(showValue('y'.repeat(59)).endsWith('...')).toBe(true);
  });
});

describe('valueAt', () => {
  it('follows a key path through objects and arrays', () => {
    const data = { planner: { safetyFactor: 1.5 }, list: [{ a: 'b' }] };
    expect(valueAt(data, ['planner', 'safetyFactor'])).toBe(1.5);
    expect(valueAt(data, ['list', 0, 'a'])).toBe('b');
    expect(valueAt(data, [])).toBe(data);
  });

  it('gives undefined where the path does not exist', () => {
    expect(valueAt({ planner: 3 }, ['planner', 'safetyFactor'])).toBeUndefined();
    expect(valueAt({ planner: null }, ['planner', 'safetyFactor'])).toBeUndefined();
    expect(valueAt(undefined, ['a'])).toBeUndefined();
  });
});

describe('describeIssue', () => {
  const firstIssue = (data: unknown): z.core.$ZodIssue => {
    const result = ConfigFileSchema.safeParse(data);
    if (result.success) throw new Error('expected the data to be invalid');
    const issue = result.error.issues[0];
    if (issue === undefined) throw new Error('expected an issue');
    return issue;
  };

  it('names an unknown key, suggests the close one and lists the allowed keys', () => {
    const data = { planner: { safetyfactor: 0.9 } };
    const { path, text, at } = describeIssue(firstIssue(data), data, ConfigFileSchema);
    expect(path).toEqual(['planner', 'safetyfactor']);
    expect(at).toBe('key'); // point at the misspelt key, not at its value
    expect(text).toBe(
      'planner: unknown key "safetyfactor" (did you mean "safetyFactor"?); allowed here: safetyFactor',
    );
  });

  it('says the kind of bad value, its key path and what is allowed', () => {
    const data = { planner: { safetyFactor: 1.5 } };
    const { path, text, at } = describeIssue(firstIssue(data), data, ConfigFileSchema);
    expect(path).toEqual(['planner', 'safetyFactor']);
    expect(at).toBe('value');
    expect(text).toBe(
      'planner.safetyFactor: this number is not allowed: must be at most 1 (the whole memory)',
    );
  });

  it('never quotes a value read from the file: it names the kinds expected and found', () => {
    // A .env given as a campaign file reads as one string: its secrets must not reach the message.
    const secret = 'TRADELAB_STORAGE=postgres://u:pa55word@db/x API_KEY=abcdef';
    const top = describeIssue(firstIssue(secret), secret, ConfigFileSchema);
    expect(top.text).toBe('(top level): expected a mapping, found a string');
    const data = { paths: { storage: 'mysql://u:pa55word@db/x' }, detect: { enabled: 'pa55word' } };
    const result = ConfigFileSchema.safeParse(data);
    if (result.success) throw new Error('expected the data to be invalid');
    const texts = result.error.issues.map(
      (issue) => describeIssue(issue, data, ConfigFileSchema).text,
    );
    expect(texts).toEqual([
      'paths.storage: this string is not allowed: expected memory:, sqlite:PATH or postgres://…',
      'detect.enabled: expected a boolean, found a string',
    ]);
  });

  it('prefixes a base path to the key path', () => {
    const data = { planner: { safetyFactor: 0 } };
    const { path, text } = describeIssue(firstIssue(data), data, ConfigFileSchema, ['root']);
    expect(path).toEqual(['root', 'planner', 'safetyFactor']);
    expect(text).toContain(
      'root.planner.safetyFactor: this number is not allowed: must be greater than 0',
    );
  });

  it('says "is required" for a missing field', () => {
    const schema = z.strictObject({ a: z.strictObject({ b: z.number() }) });
    const data = { a: {} };
    const result = schema.safeParse(data);
    if (result.success) throw new Error('expected the data to be invalid');
    const issue = result.error.issues[0];
    if (issue === undefined) throw new Error('expected an issue');
    // "nothing is not allowed: is required" would be a confusing sentence.
    expect(describeIssue(issue, data, schema).text).toBe('a.b: is required');
  });
});
