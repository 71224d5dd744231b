import { h } from './dom.js';

/** A column of {@link dataTable}. */
export interface Column<R> {
  key: string;
  label: string;
  /** What the column sorts by. */
  value: (row: R) => number | string | null;
  /** What the cell shows; default: the value. */
  render?: (row: R) => Node | string;
  numeric?: boolean;
}

/** Options of {@link dataTable}. */
export interface TableOptions<R> {
  columns: Column<R>[];
  /** `data-testid` of the table. */
  testId: string;
  /** A row's identity, kept as `data-key` (tests and live updates find rows by it). */
  rowKey: (row: R) => string;
  onClick?: (row: R) => void;
  sort?: { key: string; order: 'asc' | 'desc' };
  empty?: string;
}

/** A table whose headers sort it (click again to reverse); `update` keeps the sort. */
export function dataTable<R>(options: TableOptions<R>): {
  element: HTMLElement;
  update(rows: readonly R[]): void;
} {
  let sort = options.sort ?? { key: options.columns[0]?.key ?? '', order: 'asc' as const };
  let rows: readonly R[] = [];
  const thead = h('thead');
  const tbody = h('tbody');
  const table = h('table', { 'data-testid': options.testId }, thead, tbody);
  const compare = (a: R, b: R): number => {
    const column = options.columns.find((c) => c.key === sort.key);
    if (column === undefined) return 0;
    const x = column.value(a);
    const y = column.value(b);
    // Missing values go last whichever way the column sorts.
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    const order = sort.order === 'asc' ? 1 : -1;
    return (
      (typeof x === 'number' && typeof y === 'number'
        ? x - y
        : String(x).localeCompare(String(y))) * order
    );
  };
  const draw = (): void => {
    thead.replaceChildren(
      h(
        'tr',
        {},
        options.columns.map((c) => {
          const th = h(
            'th',
            {
              class: `sortable${c.numeric === true ? ' num' : ''}`,
              'data-key': c.key,
              'aria-sort':
                sort.key === c.key
                  ? sort.order === 'asc'
                    ? 'ascending'
                    : 'descending'
                  : undefined,
            },
            c.label,
          );
          th.addEventListener('click', () => {
            sort = {
              key: c.key,
              order: sort.key === c.key && sort.order === 'asc' ? 'desc' : 'asc',
            };
            draw();
          });
          return th;
        }),
      ),
    );
    const sorted = [...rows].sort(compare);
    if (sorted.length === 0) {
      tbody.replaceChildren(
        h(
          'tr',
          {},
          h(
            'td',
            { colspan: options.columns.length, class: 'muted' },
            options.empty ?? 'Nothing yet.',
          ),
        ),
      );
      return;
    }
    tbody.replaceChildren(
      ...sorted.map((row) => {
        const tr = h(
          'tr',
          { 'data-key': options.rowKey(row), class: options.onClick ? 'clickable' : undefined },
          options.columns.map((c) =>
            h(
              'td',
              { class: c.numeric === true ? 'num' : undefined },
              c.render ? c.render(row) : String(c.value(row) ?? '–'),
            ),
          ),
        );
        if (options.onClick) {
          const click = options.onClick;
          tr.addEventListener('click', () => {
            click(row);
          });
        }
        return tr;
      }),
    );
  };
  draw();
  return {
    element: h('div', { class: 'table-wrap' }, table),
    update(next) {
      rows = next;
      draw();
    },
  };
}
