import { describe, expect, it } from 'vitest';
import { errorText } from './error-text.js';

describe('errorText', () => {
  it("is an error's message when it has one", () => {
    expect(errorText(new Error('the input is missing'))).toBe('the input is missing');
    expect(errorText('boom')).toBe('boom');
  });

  it('says what was thrown, and where, when there is no message', () => {
    expect(errorText(new Error())).toMatch(
      /^Error with no message, thrown at .*error-text\.test\.ts:\d+:\d+/,
    );
    expect(errorText(new RangeError(' '))).toMatch(/^RangeError with no message, thrown at /);
    expect(errorText('')).toBe('an empty string was thrown, not an Error with a message');
    expect(errorText(undefined)).toBe('undefined was thrown, not an Error with a message');
    expect(errorText({ code: 7 })).toBe('{"code":7} was thrown, not an Error with a message');
  });
});
