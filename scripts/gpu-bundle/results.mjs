#!/usr/bin/env node
// The GPU bundle's results file (run.sh calls this; it lives beside app/ in the bundle).
//
//   node results.mjs add LABEL LINES RESULTS [--table | --text]
//       appends the JSON lines of LINES to RESULTS, each with "command": LABEL; with --table,
//       prints them as `tradelab bench` prints its table (its own printBench, from app/dist); with
//       --text, one line each (for bench/pytorch-ppo-update.py's, which are not tradelab's)
//   node results.mjs webgpu LINES
//       says whether `tradelab backends --json` (LINES) found a WebGPU adapter; exits 1 if not
//   node results.mjs ratios RESULTS
//       prints, per shape, tradelab's PPO update against PyTorch's (the GPU engine and tfjs's
//       webgpu against CUDA, the best CPU row against one CPU thread), and bench ppo's gpu and
//       webgpu rows against its wasm rows
//
// A command's benchmarks run once, with --json, and the table is drawn from those lines: a second
// run for the table would double the GPU machine's time and could disagree with the first.
import { appendFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const app = join(dirname(fileURLToPath(import.meta.url)), 'app');

function readLines(path) {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      try {
        return JSON.parse(line);
      } catch (error) {
        throw new Error(`${path}:${index + 1}: not a JSON line (${error.message}): ${line}`, {
          cause: error,
        });
      }
    });
}

async function add(label, linesPath, resultsPath, show) {
  const records = readLines(linesPath);
  for (const record of records)
    appendFileSync(resultsPath, `${JSON.stringify({ command: label, ...record })}\n`);
  if (show === '--text')
    for (const r of records)
      console.log(
        `${r.name}: ${number.format(r.rate)} ${r.unit}${r.cpuRate === undefined ? '' : `, ${number.format(r.cpuRate)} per CPU second`} (median of ${r.runs.length} runs: ${r.runs.map((s) => s.toFixed(3)).join(' ')} s)`,
      );
  if (show !== '--table') return;
  const { printBench } = await import(pathToFileURL(join(app, 'dist/cli/print-bench.js')).href);
  const { createOutput } = await import(pathToFileURL(join(app, 'dist/cli/output.js')).href);
  printBench(createOutput({ stdout: process.stdout, stderr: process.stderr }, false), records);
}

const SHAPE = /\(state (\d+), netDim (\d+), actions (\d+), batch (\d+)\)/;
const number = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** "a ÷ b = r×" for two rows, or why there is no ratio. */
function ratio(label, top, bottom) {
  if (top === undefined || bottom === undefined)
    return `  ${label}: no ratio (${top === undefined ? 'no tradelab row' : 'no PyTorch row'})`;
  return `  ${label}: ${number.format(top.rate)} ÷ ${number.format(bottom.rate)} ${top.unit} = ${(top.rate / bottom.rate).toFixed(2)}×\n    (${top.name}\n     against ${bottom.name})`;
}

const best = (rows) =>
  rows.reduce((b, r) => (b === undefined || r.rate > b.rate ? r : b), undefined);

function ratios(resultsPath) {
  const records = readLines(resultsPath);
  const updates = records.filter((r) => r.bench === 'ppo-update' && SHAPE.test(r.name));
  const shapes = [...new Set(updates.map((r) => SHAPE.exec(r.name)[0]))];
  const lines = ['tradelab against PyTorch, PPO update (samples/s; above 1 is tradelab faster):'];
  if (shapes.length === 0) lines.push('  no PPO update rows');
  for (const shape of shapes) {
    const rows = updates.filter((r) => r.name.includes(shape));
    const torch = rows.filter((r) => r.name.includes('PyTorch'));
    const ours = rows.filter((r) => !r.name.includes('PyTorch'));
    const engine = (r) => r.name.includes("tradelab's engine");
    const webgpu = (r) => r.name.includes('webgpu');
    const cuda = best(torch.filter((r) => r.name.includes('CUDA')));
    lines.push(`${shape.slice(1, -1)}:`);
    lines.push(ratio("tradelab's GPU engine ÷ PyTorch CUDA", best(ours.filter(engine)), cuda));
    lines.push(ratio("tfjs's webgpu ÷ PyTorch CUDA", best(ours.filter(webgpu)), cuda));
    lines.push(
      ratio(
        'best CPU row ÷ PyTorch CPU',
        best(ours.filter((r) => !webgpu(r) && !engine(r))),
        best(torch.filter((r) => r.name.includes('CPU'))),
      ),
    );
  }
  // bench ppo: the same nEnvs and netDim on the GPU backends and on wasm.
  const training = records.filter((r) => r.bench === 'ppo' && r.name.startsWith('PPO training'));
  const onBackend = (backend) => training.filter((r) => r.command.includes(`--backend ${backend}`));
  for (const backend of ['gpu', 'webgpu']) {
    const rows = onBackend(backend);
    if (rows.length === 0) continue;
    lines.push('', `bench ppo, ${backend} against wasm (env steps/s end to end):`);
    for (const row of rows) {
      const key = row.name.split(':')[0];
      const wasm = onBackend('wasm').find((r) => r.name.split(':')[0] === key);
      lines.push(
        wasm === undefined
          ? `  ${key}: no wasm row`
          : `  ${key}: ${number.format(row.rate)} ÷ ${number.format(wasm.rate)} = ${(row.rate / wasm.rate).toFixed(2)}×`,
      );
    }
  }
  console.log(lines.join('\n'));
}

/** A run meant for the GPU says first, not by missing rows, when webgpu has no adapter. */
function webgpu(linesPath) {
  const row = readLines(linesPath).find((r) => r.name === 'webgpu');
  if (row?.available === true) {
    console.log(`webgpu: available: ${row.detail}`);
    return;
  }
  console.log(`webgpu: NOT AVAILABLE, so there are no webgpu rows: ${row?.detail ?? 'no row'}`);
  process.exitCode = 1;
}

const [command, ...args] = process.argv.slice(2);
if (command === 'add' && args.length >= 3) await add(args[0], args[1], args[2], args[3]);
else if (command === 'webgpu' && args.length === 1) webgpu(args[0]);
else if (command === 'ratios' && args.length === 1) ratios(args[0]);
else {
  console.error(
    'usage: node results.mjs add LABEL LINES RESULTS [--table | --text] | webgpu LINES | ratios RESULTS',
  );
  process.exit(2);
}
