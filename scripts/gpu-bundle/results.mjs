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
//       prints, per shape, tradelab's PPO update and TCN step against PyTorch's (the GPU engine
//       and tfjs's webgpu against CUDA, the best CPU row against one CPU thread; seed 003's own
//       it/s beside its configuration), and bench ppo's gpu and webgpu rows against its wasm rows
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
  lines.push('', ...tcnRatios(records), '', ...gemmPaths(records));
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

/** The engine's GEMM paths per shape (bench gemm --gpu): GFLOP/s, speed over f32, error. */
function gemmPaths(records) {
  const rows = records.filter((r) => r.bench === 'gemm' && r.gpuGemm !== undefined);
  const lines = [
    "tradelab's GPU GEMM by path (GFLOP/s by device timestamps; the others against f32):",
  ];
  if (rows.length === 0) lines.push('  no GPU GEMM rows');
  const shapeOf = (r) => /, (\d+×\d+×\d+ [NT][NT]) /.exec(r.name)?.[1] ?? r.name;
  for (const shape of [...new Set(rows.map(shapeOf))]) {
    const line = rows
      .filter((r) => shapeOf(r) === shape)
      .map((r) => {
        const g = r.gpuGemm;
        if (g.path === 'f32') return `f32 ${number.format(r.rate)}`;
        return g.verified && r.rate > 0
          ? `${g.precision} ${number.format(r.rate)} (${g.speedupOverF32.toFixed(2)}×, error ${g.maxError.toExponential(1)})`
          : `${g.precision}: not reported`;
      });
    lines.push(`  ${shape}: ${line.join('; ')}`);
  }
  return lines;
}

/** A TCN step's shape in tradelab's row names (×) and PyTorch's (x). */
const TCN_SHAPE =
  /(\d+) chunks [x×] (\d+) bars, checkpointing (on|off) \((\d+)[x×](\d+), k (\d+), (\d+) features/;
/** Seed 003's configuration, and what it measured there (H100, bf16 autocast, checkpointed). */
const SEED_TCN = { chunks: '200', seq: '512', layers: '12', hidden: '512', kernel: '3' };
const SEED_TCN_IT_PER_SECOND = 10;

/** Per TCN shape: the engine and the CPU against PyTorch; seed 003's it/s beside its own. */
function tcnRatios(records) {
  const steps = records.filter((r) => r.name.includes('TCN train step') && TCN_SHAPE.test(r.name));
  const key = (r) => TCN_SHAPE.exec(r.name).slice(1).join(' ');
  const lines = [
    'tradelab against PyTorch, TCN training step (timesteps/s, so the same ratio as in it/s; above 1 is tradelab faster):',
  ];
  if (steps.length === 0) lines.push('  no TCN rows');
  for (const shape of [...new Set(steps.map(key))]) {
    const rows = steps.filter((r) => key(r) === shape);
    const torch = rows.filter((r) => r.name.includes('PyTorch'));
    const ours = rows.filter((r) => !r.name.includes('PyTorch'));
    const engine = (r) => r.name.includes("tradelab's engine");
    const cuda = best(torch.filter((r) => r.name.includes(' on cuda')));
    const [chunks, seq, checkpoint, layers, hidden, kernel, features] = shape.split(' ');
    lines.push(
      `${chunks} chunks × ${seq} bars, ${layers}×${hidden}, kernel ${kernel}, ${features} features, checkpointing ${checkpoint}:`,
    );
    lines.push(ratio("tradelab's GPU engine ÷ PyTorch CUDA", best(ours.filter(engine)), cuda));
    // (no tfjs webgpu row: it cannot train the TCN in Node)
    lines.push(
      ratio(
        'best CPU row ÷ PyTorch CPU',
        best(ours.filter((r) => !engine(r))),
        best(torch.filter((r) => r.name.includes(' on cpu'))),
      ),
    );
    const isSeed = Object.entries(SEED_TCN).every(
      ([name, value]) => ({ chunks, seq, layers, hidden, kernel })[name] === value,
    );
    if (isSeed) {
      const mine = best(ours.filter(engine));
      const itPerSecond = (r) =>
        r === undefined ? 'no row' : `${(r.rate / (Number(chunks) * Number(seq))).toFixed(2)} it/s`;
      lines.push(
        `  seed 003 on an H100 (bf16 autocast, checkpointed): ${SEED_TCN_IT_PER_SECOND} it/s; here tradelab's engine ${itPerSecond(mine)}, PyTorch CUDA (f32) ${itPerSecond(cuda)}`,
      );
    }
  }
  return lines;
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
