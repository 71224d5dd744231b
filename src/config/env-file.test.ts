import { describe, expect, it } from 'vitest';
import { errorOf } from '../../test/support/assertions.js';
import { parseEnvFile } from './env-file.js';

const parse = (text: string): Record<string, string> => parseEnvFile('/p/.env', text).values;

describe('.env', () => {
  it('refuses a line without =, naming the file and line, instead of swallowing the next setting', () => {
    const error = errorOf(() => parse('# GPU settings\nGPU_PROFILE\nTRADELAB_SAFETY_FACTOR=0.7\n'));
    expect(error.code).toBe('CONFIG_PARSE');
    expect(error.message).toBe('/p/.env:2: "GPU_PROFILE" is not a setting');
    expect(error.hint).toContain('NAME=value');
  });

  it('reads bare, quoted, exported and commented values, and the line of each', () => {
    const file = parseEnvFile(
      '/p/.env',
      [
        '\uFEFFA=1',
        'export B = two words  # a comment',
        "C='literal \\n # kept'",
        'D="line\\nbreak \\"quoted\\""',
        'E="spans',
        'two lines"',
        '',
        '  # indented comment',
        'F=',
        'A=again',
      ].join('\r\n'),
    );
    expect(file.values).toEqual({
      A: 'again',
      B: 'two words',
      C: 'literal \\n # kept',
      D: 'line\nbreak "quoted"',
      E: 'spans\ntwo lines',
      F: '',
    });
    expect(['A', 'B', 'E', 'F'].map((n) => file.lineOf(n))).toEqual([10, 2, 5, 9]);
  });

  it('refuses an unclosed quote and text after the closing quote', () => {
    expect(errorOf(() => parse("A='open\nB=1")).message).toBe(
      "/p/.env:1: A: the value's ' is never closed",
    );
    expect(errorOf(() => parse('A="x" y')).message).toBe(
      '/p/.env:1: A: "y" after the closing quote',
    );
  });
});
