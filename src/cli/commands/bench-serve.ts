import { fileURLToPath } from 'node:url';
import { benchServe, type ServeBenchRow } from '../../bench/index.js';
import type { CommandContext } from '../command-spec.js';
import { intOption } from '../option-values.js';
import { renderTable } from '../output.js';

/** tradelab's own entry, which the benchmark serves with (dist/cli/commands/ → bin/). */
const BIN = fileURLToPath(new URL('../../../bin/tradelab.js', import.meta.url));

const ms = (value: number): string => (Number.isFinite(value) ? value.toFixed(1) : '–');

/** `tradelab bench serve [--clients N] [--seconds S]`: the service under load while a campaign writes. */
export async function run(context: CommandContext): Promise<number> {
  const { out, options } = context;
  const clients = intOption(options, 'clients', 1) ?? 50;
  const seconds = intOption(options, 'seconds', 1) ?? 20;
  out.note(
    `bench serve: ${clients} clients for ${seconds} s against a service whose campaign job writes trials…`,
  );
  const result = await benchServe({
    command: [process.execPath, BIN],
    clients,
    seconds,
    onProgress: (elapsed, requests) => {
      if (!out.json && Math.round(elapsed) % 5 === 0) {
        out.note(`  ${Math.round(elapsed)} s: ${requests.toLocaleString('en-US')} requests`);
      }
    },
  });
  if (out.json) {
    for (const row of [...result.rows, result.total]) {
      out.record({
        ...row,
        clients,
        seconds: result.seconds,
        trialsWritten: result.trialsWritten,
        machine: result.machine,
      });
    }
  } else {
    const lines = renderTable<ServeBenchRow>(
      [...result.rows, result.total],
      [
        { header: 'ENDPOINT', value: (r) => r.endpoint },
        { header: 'REQUESTS', value: (r) => r.requests.toLocaleString('en-US'), right: true },
        { header: 'ERRORS', value: (r) => String(r.errors), right: true },
        { header: 'LOCKED', value: (r) => String(r.locked), right: true },
        { header: 'P50 MS', value: (r) => ms(r.p50Ms), right: true },
        { header: 'P90 MS', value: (r) => ms(r.p90Ms), right: true },
        { header: 'P99 MS', value: (r) => ms(r.p99Ms), right: true },
        { header: 'MAX MS', value: (r) => ms(r.maxMs), right: true },
        { header: 'REQ/S', value: (r) => r.perSecond.toFixed(1), right: true },
      ],
    );
    for (const line of lines) out.line(line);
    out.line();
    out.line(
      `${clients} clients, ${result.seconds.toFixed(1)} s, while the campaign ended ${result.trialsWritten} trials in the same SQLite file; ${result.machine.cpus} CPUs, load ${result.machine.loadAverage.toFixed(2)}`,
    );
  }
  for (const sample of result.errorSamples) out.note(`error: ${sample}`);
  return result.total.errors > 0 ? 1 : 0;
}
