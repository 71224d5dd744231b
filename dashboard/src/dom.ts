type Child = Node | string | number | null | undefined | false;

/** Creates an element: `h('td', { class: 'num' }, '1.5')`. Text children are text, never HTML. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number | boolean | undefined> = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** A number for tables: 4 significant digits, thousands grouped; `–` when missing. */
export function num(value: number | null | undefined, digits = 4): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '–';
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  return Number(value.toPrecision(digits)).toLocaleString('en-US', { maximumFractionDigits: 6 });
}

/** A duration in ms as `45 s`, `3 min 05 s`, `2 h 10 min`. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '–';
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** A time as `2026-11-26 04:12:03` (UTC). */
export function time(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return '–';
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

/** A state badge. */
export function badge(state: string): HTMLElement {
  return h('span', { class: `state state-${state}` }, state);
}

/** A progress bar of `fraction` (0–1). */
export function bar(fraction: number): HTMLElement {
  const pct = Math.max(0, Math.min(1, fraction)) * 100;
  return h('div', { class: 'bar' }, h('div', { style: `width:${pct.toFixed(1)}%` }));
}

/** An error box with the API's message and hint. */
export function errorBox(error: unknown): HTMLElement {
  const e = error as { message?: string; hint?: string };
  return h(
    'div',
    { class: 'error' },
    e.message ?? String(error),
    e.hint ? h('div', {}, e.hint) : null,
  );
}
