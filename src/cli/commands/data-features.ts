import { writeFileAtomic } from '../../core/index.js';
import { loadMarketData, parseDatasetKeys, type MarketData } from '../../data/index.js';
import type { CommandContext } from '../command-spec.js';
import { projectPath } from '../project-path.js';
import { count, isoTime, num, plural } from '../format.js';
import { intOption } from '../option-values.js';
import { openStore } from '../open-store.js';
import { renderTable } from '../output.js';

/**
 * `tradelab data features SYM[,SYM]:TF`: the feature table the env will see (names, warm-up,
 * statistics, the last rows), aligned across symbols; `--out` writes all of it as CSV.
 */
export async function run(context: CommandContext): Promise<void> {
  const { out, options } = context;
  const keys = parseDatasetKeys(context.positionals[0] ?? '');
  const started = performance.now();
  const data = await loadMarketData(openStore(context), keys, {
    onWarning: (message) => {
      out.note(`warning: ${message}`);
    },
  });
  const seconds = (performance.now() - started) / 1000;
  const assets = data.symbols.length;
  const width = data.featureNames.length;
  const t = data.timestamps.length;
  if (typeof options.out === 'string') {
    const path = projectPath(context, options.out);
    writeFileAtomic(path, featuresCsv(data));
    out.note(`wrote ${count(t * assets)} rows × ${width} features to ${path}`);
  }
  if (out.json) {
    out.record({
      type: 'features',
      symbols: data.symbols,
      timeframe: data.timeframe,
      bars: t,
      featureNames: data.featureNames,
      warmupDropped: data.warmupDropped,
      alignment: data.alignment,
      seconds,
    });
    return;
  }
  out.line(
    `${data.symbols.join(', ')} at ${data.timeframe}: ${count(t)} aligned bars × ${plural(assets, 'asset')} × ${width} features (loaded in ${(seconds * 1000).toFixed(0)} ms)`,
  );
  out.line(
    `range ${isoTime(data.timestamps[0] ?? Number.NaN)} → ${isoTime(data.timestamps[t - 1] ?? Number.NaN)}; warm-up: first ${count(data.warmupDropped)} bars dropped from every array`,
  );
  data.symbols.forEach((symbol, a) => {
    const dropped = data.alignment.dropped[a] ?? 0;
    if (dropped > 0)
      out.line(
        `alignment: ${symbol} lost ${count(dropped)} of ${count(data.alignment.bars[a] ?? 0)} bars that not every symbol has`,
      );
  });
  out.line();
  const stats = data.featureNames.map((name, f) => {
    let sum = 0;
    let sq = 0;
    let min = Infinity;
    let max = -Infinity;
    const n = t * assets;
    for (let i = 0; i < n; i++) {
      const v = data.techArray[i * width + f] ?? 0;
      sum += v;
      sq += v * v;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    const mean = sum / n;
    return { name, mean, sd: Math.sqrt(Math.max(0, sq / n - mean * mean)), min, max };
  });
  for (const line of renderTable(stats, [
    { header: 'FEATURE', value: (s) => s.name },
    { header: 'MEAN', value: (s) => num(s.mean, 4), right: true },
    { header: 'SD', value: (s) => num(s.sd, 4), right: true },
    { header: 'MIN', value: (s) => num(s.min, 4), right: true },
    { header: 'MAX', value: (s) => num(s.max, 4), right: true },
  ]))
    out.line(line);
  const rows = Math.min(intOption(options, 'rows', 0) ?? 3, t);
  if (rows > 0) {
    out.line();
    out.line(`last ${rows} bars of ${data.symbols[0] ?? '?'}:`);
    const last = Array.from({ length: rows }, (_, k) => t - rows + k);
    for (const line of renderTable(last, [
      { header: 'TIME', value: (i) => isoTime(data.timestamps[i] ?? Number.NaN) },
      ...data.featureNames.map((name, f) => ({
        header: name,
        value: (i: number) => num(data.techArray[i * assets * width + f] ?? Number.NaN, 4),
        right: true,
      })),
    ]))
      out.line(line);
  }
}

function featuresCsv(data: MarketData): string {
  const assets = data.symbols.length;
  const width = data.featureNames.length;
  const lines = [`timestamp,symbol,close,${data.featureNames.join(',')}`];
  for (let i = 0; i < data.timestamps.length; i++) {
    const time = new Date(data.timestamps[i] ?? 0).toISOString();
    for (let a = 0; a < assets; a++) {
      const base = (i * assets + a) * width;
      lines.push(
        `${time},${data.symbols[a] ?? ''},${data.priceArray[i * assets + a] ?? ''},${Array.from(data.techArray.subarray(base, base + width)).join(',')}`,
      );
    }
  }
  return `${lines.join('\n')}\n`;
}
