import { writeFileAtomic } from '../../core/index.js';
import {
  annualizedVolatility,
  calendarFor,
  DAY_MS,
  dailyRealizedVariance,
  DEFAULT_FORWARD_HORIZON,
  forwardRealizedVariance,
  parseDatasetKey,
  parseTimeframe,
  timeframeMs,
} from '../../data/index.js';
import type { CommandContext } from '../command-spec.js';
import { projectPath } from '../project-path.js';
import { count, num } from '../format.js';
import { intOption } from '../option-values.js';
import { openStore } from '../open-store.js';
import { renderTable } from '../output.js';

/**
 * `tradelab data rv SYM:TF`: daily realized variance at a sampling interval, its annualized
 * volatility, and the forward target (mean RV over the next h sessions).
 */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const key = parseDatasetKey(context.positionals[0] ?? '');
  const sampling = timeframeMs(
    parseTimeframe(typeof options.sampling === 'string' ? options.sampling : '5m', '--sampling'),
  );
  const horizon = intOption(options, 'horizon') ?? DEFAULT_FORWARD_HORIZON;
  const { entry, bars } = await openStore(context).read(key);
  const calendar = calendarFor(entry.calendar);
  const rv = dailyRealizedVariance(bars, calendar, timeframeMs(key.timeframe), {
    samplingMs: sampling,
  });
  const vol = annualizedVolatility(rv.rv, calendar);
  const target = forwardRealizedVariance(rv.rv, horizon);
  const days = rv.days.length;
  const date = (d: number): string =>
    new Date((rv.days[d] ?? 0) * DAY_MS).toISOString().slice(0, 10);
  if (typeof options.out === 'string') {
    const path = projectPath(context, options.out);
    const lines = ['date,returns,rv,annualized_vol,forward_rv'];
    for (let d = 0; d < days; d++)
      lines.push(
        `${date(d)},${rv.returnsPerDay[d] ?? 0},${rv.rv[d] ?? ''},${vol[d] ?? ''},${Number.isNaN(target[d]) ? '' : (target[d] ?? '')}`,
      );
    writeFileAtomic(path, `${lines.join('\n')}\n`);
    out.note(`wrote ${count(days)} days to ${path}`);
  }
  if (out.json) {
    for (let d = 0; d < days; d++) {
      out.record({
        date: date(d),
        returns: rv.returnsPerDay[d],
        rv: rv.rv[d],
        annualizedVol: vol[d],
        forwardRv: Number.isNaN(target[d]) ? null : target[d],
      });
    }
    return;
  }
  out.line(
    `${key.symbol}:${key.timeframe} daily realized variance: ${count(days)} sessions, returns sampled every ${sampling / 60_000} min (${entry.calendar}, ${calendar.sessionsPerYear} sessions a year)`,
  );
  if (rv.note !== undefined) out.line(`note: ${rv.note}`);
  if (rv.dropped.days.length > 0)
    out.line(
      `${count(rv.dropped.days.length)} sessions had fewer than ${rv.minReturns} returns and were left out`,
    );
  out.line(
    `forward target: mean RV over the next ${horizon} sessions (d+1 … d+${horizon}); the last ${horizon} days have none`,
  );
  out.line();
  const rows = Math.min(intOption(options, 'rows', 0) ?? 10, days);
  const last = Array.from({ length: rows }, (_, k) => days - rows + k);
  for (const line of renderTable(last, [
    { header: 'DATE', value: (d) => date(d) },
    { header: 'RETURNS', value: (d) => String(rv.returnsPerDay[d] ?? 0), right: true },
    { header: 'RV', value: (d) => num(rv.rv[d] ?? Number.NaN, 4), right: true },
    { header: 'ANN. VOL', value: (d) => `${((vol[d] ?? 0) * 100).toFixed(1)} %`, right: true },
    {
      header: `FWD RV (${horizon}d)`,
      value: (d) => (Number.isNaN(target[d]) ? '-' : num(target[d] ?? Number.NaN, 4)),
      right: true,
    },
  ]))
    out.line(line);
}
