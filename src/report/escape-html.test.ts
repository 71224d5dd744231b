import { describe, expect, it } from 'vitest';
import { escapeHtml } from './escape-html.js';

describe('escapeHtml', () => {
  it('escapes the five characters that matter in text and attributes', () => {
    expect(escapeHtml(`<a href="x">Tom & Jerry's</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;',
    );
  });
  it('escapes an ampersand once, so entities in the input stay visible as text', () => {
    expect(escapeHtml('&amp;')).toBe('&amp;amp;');
  });
  it('drops control characters XML forbids but keeps whitespace and other Unicode', () => {
    expect(escapeHtml('a\u0000b\u001Fc\td\ne\u00e9\u{1F600}')).toBe('abc\td\ne\u00e9\u{1F600}');
  });
});
