import { describe, expect, it } from 'vitest';
import { renderDrawdownChart } from './drawdown-chart.js';
import { renderHtmlReport } from './html-report.js';
import { renderLineChart, type SvgMarkup } from './line-chart.js';

/*
 * Every chart and report must open offline in any browser: well-formed markup, nothing fetched,
 * nothing run, and no NaN or Infinity leaking into coordinates. These checks run over a gallery of
 * ordinary and awkward inputs.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NASTY = `<script>alert('x')</script> & "quotes" \u0001`;

function wave(n: number, phase = 0): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => 10_000 * (1 + 0.2 * Math.sin(i / 50 + phase)));
}

const GALLERY: Record<string, () => SvgMarkup> = {
  'two long series on a time axis': () => {
    const x = Float64Array.from({ length: 100_000 }, (_, i) => Date.UTC(2020, 0, 1) + i * HOUR);
    return renderLineChart({
      title: 'Portfolio value',
      xKind: 'time',
      xLabel: 'time (UTC)',
      yLabel: 'value',
      series: [
        { name: 'policy', x, y: wave(100_000) },
        { name: 'buy-and-hold', x, y: wave(100_000, 1), dash: '6 4' },
      ],
      referenceLine: { y: 10_000, label: 'initial cash' },
    });
  },
  'hours of data': () => {
    const x = Array.from({ length: 50 }, (_, i) => Date.UTC(2021, 2, 4) + i * 10 * 60_000);
    return renderLineChart({ xKind: 'time', series: [{ name: 'e', x, y: wave(50) }] });
  },
  'weeks of data': () => {
    const x = Array.from({ length: 60 }, (_, i) => Date.UTC(2021, 2, 4) + i * DAY);
    return renderLineChart({ xKind: 'time', series: [{ name: 'e', x, y: wave(60) }] });
  },
  'gaps everywhere': () =>
    renderLineChart({
      series: [{ name: NASTY, y: [null, 1, Number.NaN, 2, 3, Infinity, -Infinity, 4, null] }],
      title: NASTY,
      xLabel: NASTY,
      yLabel: NASTY,
      referenceLine: { y: 2, label: NASTY },
    }),
  'log scale with zeros and negatives': () =>
    renderLineChart({ yScale: 'log', series: [{ name: 'e', y: [0, -1, 1, 10, 1e6, 0.001] }] }),
  'log scale, constant': () =>
    renderLineChart({ yScale: 'log', series: [{ name: 'e', y: [5, 5, 5] }] }),
  'empty series': () => renderLineChart({ title: 'nothing', series: [{ name: 'e', y: [] }] }),
  'no series at all': () => renderLineChart({ series: [] }),
  'single point': () => renderLineChart({ series: [{ name: 'e', x: [0], y: [0] }] }),
  'single time point': () =>
    renderLineChart({ xKind: 'time', series: [{ name: 'e', x: [Date.UTC(2022, 5, 1)], y: [1] }] }),
  'constant series': () => renderLineChart({ series: [{ name: 'e', y: [7, 7, 7, 7] }] }),
  'tiny and huge values': () =>
    renderLineChart({
      series: [
        { name: 'tiny', y: [1e-12, 3e-12, 2e-12] },
        { name: 'huge', y: [1e12, 1.0000001e12, 1e12] },
      ],
    }),
  'many series wrapping the legend': () =>
    renderLineChart({
      width: 300,
      height: 200,
      series: Array.from({ length: 12 }, (_, i) => ({
        name: `series number ${i}`,
        y: wave(20, i),
      })),
    }),
  'drawdown of two curves': () =>
    renderDrawdownChart({
      xKind: 'time',
      series: [
        { name: 'policy', x: [0, DAY, 2 * DAY, 3 * DAY], equity: [100, 80, null, 120] },
        { name: NASTY, x: [0, DAY, 2 * DAY, 3 * DAY], equity: [100, 100, 100, 100] },
      ],
    }),
  'drawdown of nothing': () => renderDrawdownChart({ series: [{ name: 'e', equity: [] }] }),
};

// Elements HTML closes by itself: the only tags in the page that may stand alone.
const HTML_VOID_ELEMENTS = new Set(['meta', 'link', 'br', 'hr', 'img', 'input', 'col', 'wbr']);
const ENTITY = /&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);/iy;
const TAG = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/y;
const ATTRIBUTE = /([\w:-]+)="([^"]*)"/g;

/**
 * Problems that stop `markup` from being well-formed: unbalanced or crossed tags, unquoted or
 * repeated attributes, a bare `<` or `&`. For HTML, `voidElements` may stand unclosed, the
 * doctype is allowed, and `<style>` holds raw text. An empty list means well-formed.
 */
function wellFormedProblems(markup: string, voidElements = new Set<string>()): string[] {
  const problems: string[] = [];
  const open: string[] = [];
  let roots = 0;
  let i = 0;
  const checkText = (text: string, at: number): void => {
    for (let j = text.indexOf('&'); j >= 0; j = text.indexOf('&', j + 1)) {
      ENTITY.lastIndex = j;
      if (!ENTITY.test(text)) problems.push(`bare & at ${at + j}`);
    }
    if (text.includes('>')) problems.push(`bare > at ${at}`);
  };
  while (i < markup.length) {
    const next = markup.indexOf('<', i);
    checkText(markup.slice(i, next < 0 ? markup.length : next), i);
    if (next < 0) break;
    i = next;
    if (voidElements.size > 0 && markup.startsWith('<!doctype html>', i)) {
      i += '<!doctype html>'.length;
      continue;
    }
    TAG.lastIndex = i;
    const tag = TAG.exec(markup);
    if (tag === null) {
      problems.push(`malformed tag at ${i}: ${markup.slice(i, i + 40)}`);
      i++;
      continue;
    }
    const [whole, closing, name = '', attributes = '', selfClosing] = tag;
    i += whole.length;
    const names = [...attributes.matchAll(ATTRIBUTE)].map((m) => m[1]);
    if (new Set(names).size !== names.length) problems.push(`repeated attribute in <${name}>`);
    for (const m of attributes.matchAll(ATTRIBUTE)) checkText(m[2] ?? '', i);
    if (closing === '/') {
      const expected = open.pop();
      if (expected !== name) problems.push(`</${name}> closes <${expected ?? 'nothing'}>`);
    } else if (selfClosing !== '/' && !voidElements.has(name)) {
      if (open.length === 0) roots++;
      open.push(name);
      if (name === 'style') {
        // CSS is raw text in HTML: skip to its end tag.
        const end = markup.indexOf('</style>', i);
        i = end < 0 ? markup.length : end;
      }
    } else if (open.length === 0) {
      roots++;
    }
  }
  if (open.length > 0) problems.push(`unclosed: ${open.join(' > ')}`);
  if (roots !== 1) problems.push(`${roots} root elements`);
  return problems;
}

/** Attribute values that hold NaN or Infinity anywhere. */
function nonFiniteAttributes(markup: string): string[] {
  return [...markup.matchAll(ATTRIBUTE)]
    .filter((m) => /NaN|Infinity/.test(m[2] ?? ''))
    .map((m) => m[0]);
}

/** Anything that would load or run something: URLs, sources, scripts, CSS imports. */
function externalReferences(markup: string): string[] {
  const allowed = 'xmlns="http://www.w3.org/2000/svg"';
  const rest = markup.split(allowed).join('');
  const found = rest.match(/https?:|src=|href=|<script|url\(|@import|\son[a-z]+=/gi) ?? [];
  return [...found];
}

function fullReport(): string {
  return renderHtmlReport({
    title: NASTY,
    subtitle: NASTY,
    facts: [{ label: NASTY, value: NASTY }],
    sections: Object.entries(GALLERY).map(([heading, render]) => ({
      heading,
      paragraph: NASTY,
      charts: [render()],
      table: { headers: ['metric', NASTY], rows: [[NASTY, '1.5 %']] },
    })),
    footer: NASTY,
  });
}

describe('the checker', () => {
  it('catches what it is meant to catch', () => {
    expect(wellFormedProblems('<svg><g></svg>')).not.toEqual([]);
    expect(wellFormedProblems('<svg><g/></svg><svg/>')).toEqual(['2 root elements']);
    expect(wellFormedProblems('<svg a="1" a="2"/>')).toEqual(['repeated attribute in <svg>']);
    expect(wellFormedProblems('<svg a=1/>')).not.toEqual([]);
    expect(wellFormedProblems('<svg>a & b</svg>')).not.toEqual([]);
    expect(wellFormedProblems('<svg>a &amp; b &#39;</svg>')).toEqual([]);
    expect(nonFiniteAttributes('<path d="M0 NaN"/>')).toHaveLength(1);
    expect(externalReferences('<svg xmlns="http://www.w3.org/2000/svg"/>')).toEqual([]);
    expect(externalReferences('<image href="x"/><a xlink:href="https://e.com"/>')).toHaveLength(3);
  });
});

describe.each(Object.entries(GALLERY))('chart: %s', (_, render) => {
  const svg = render();
  it('is well-formed XML', () => {
    expect(wellFormedProblems(svg)).toEqual([]);
  });
  it('references nothing outside itself', () => {
    expect(externalReferences(svg)).toEqual([]);
  });
  it('has no NaN or Infinity in any attribute', () => {
    expect(nonFiniteAttributes(svg)).toEqual([]);
  });
});

describe('a report with every chart', () => {
  const html = fullReport();
  it('balances its tags', () => {
    expect(wellFormedProblems(html, HTML_VOID_ELEMENTS)).toEqual([]);
  });
  it('references nothing outside itself and runs nothing', () => {
    expect(externalReferences(html)).toEqual([]);
  });
  it('has no NaN or Infinity in any attribute', () => {
    expect(nonFiniteAttributes(html)).toEqual([]);
  });
});
