import { describe, expect, it } from 'vitest';
import { closestMatch, editDistance } from './closest-match.js';

describe('editDistance', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('rtx4090', 'rtx4090')).toBe(0);
  });
});

describe('closestMatch', () => {
  it('suggests the nearest candidate for a typo', () => {
    expect(closestMatch('rtx4080ti', ['rtx_4090', 'rtx_4080', 'rtx4080'])).toBe('rtx4080');
    expect(closestMatch('safetyfactor', ['safetyFactor', 'backend'])).toBe('safetyFactor');
  });
  it('suggests nothing when no candidate is plausible', () => {
    expect(closestMatch('banana', ['rtx_4090', 'h100'])).toBeUndefined();
  });
});
