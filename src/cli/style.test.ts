import { describe, expect, it } from 'vitest';
import { createOutput } from './output.js';
import { colorFlag, colorWanted, createStyle } from './style.js';

describe('colorWanted', () => {
  const tty = (env: Record<string, string>, flag?: boolean) =>
    colorWanted({ isTTY: true, env, flag });
  const pipe = (env: Record<string, string>, flag?: boolean) =>
    colorWanted({ isTTY: false, env, flag });

  it('colors a terminal and nothing else by default', () => {
    expect(tty({})).toBe(true);
    expect(pipe({})).toBe(false);
    expect(tty({ TERM: 'dumb' })).toBe(false);
  });

  it('turns colors off with any non-empty NO_COLOR, and ignores an empty one', () => {
    expect(tty({ NO_COLOR: '1' })).toBe(false);
    expect(tty({ NO_COLOR: 'yes please' })).toBe(false);
    expect(tty({ NO_COLOR: '' })).toBe(true);
  });

  it('turns colors on with FORCE_COLOR, off with FORCE_COLOR=0 or false', () => {
    expect(pipe({ FORCE_COLOR: '1' })).toBe(true);
    expect(pipe({ FORCE_COLOR: '' })).toBe(true);
    expect(tty({ FORCE_COLOR: '0' })).toBe(false);
    expect(tty({ FORCE_COLOR: 'false' })).toBe(false);
  });

  it('lets --color / --no-color decide over the environment', () => {
    expect(tty({ FORCE_COLOR: '1' }, false)).toBe(false);
    expect(pipe({ NO_COLOR: '1' }, true)).toBe(true);
  });
});

describe('colorFlag', () => {
  it('takes the last of --color / --no-color, and nothing after --', () => {
    expect(colorFlag(['data', 'list'])).toBeUndefined();
    expect(colorFlag(['--color', 'x', '--no-color'])).toBe(false);
    expect(colorFlag(['--no-color', '--color'])).toBe(true);
    expect(colorFlag(['--', '--no-color'])).toBeUndefined();
  });
});

describe('createStyle', () => {
  it('wraps text in ANSI codes when on, and returns it unchanged when off', () => {
    expect(createStyle(true).red('boom')).toBe('\u001b[31mboom\u001b[39m');
    expect(createStyle(true).bold('Usage:')).toBe('\u001b[1mUsage:\u001b[22m');
    expect(createStyle(false).red('boom')).toBe('boom');
  });

  it('makes warnings yellow and other notes plain in an output', () => {
    let text = '';
    const stream = { write: (t: string) => (text += t) };
    const out = createOutput({ stdout: stream, stderr: stream }, false, createStyle(true));
    out.note('warning: 3 workers on 2 cores');
    out.note('stopped after update 4');
    expect(text).toBe(
      '\u001b[33mwarning: 3 workers on 2 cores\u001b[39m\nstopped after update 4\n',
    );
  });
});
