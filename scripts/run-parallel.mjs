#!/usr/bin/env node
// Runs shell commands at the same time and fails when any of them fails: `npm test` runs the
// linters beside vitest with it.
//
//   node scripts/run-parallel.mjs "npm run lint" "npm run check:imports" "vitest run"
//
// Why: type-checked ESLint takes some 40 s on one core, and on a two-core machine the other core
// idled meanwhile; vitest fills it. The last command writes to the terminal as it runs (vitest's
// progress); the output of the others is kept and printed after the last one ends, each under its
// command line, so that it does not cut through vitest's. Then one line per command says how it
// ended, and the exit status is the first non-zero one in the order given (1 for a signal).
import { spawn } from 'node:child_process';

const commands = process.argv.slice(2);
if (commands.length === 0) {
  process.stderr.write('usage: node scripts/run-parallel.mjs COMMAND...\n');
  process.exit(2);
}

/** Runs `command` in a shell; resolves with its exit status and, unless `live`, its output. */
function run(command, live) {
  const started = performance.now();
  const child = spawn(command, {
    shell: true,
    stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'],
  });
  const chunks = [];
  if (!live) {
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
  }
  return new Promise((resolve) => {
    const end = (status) => {
      resolve({
        command,
        status,
        output: Buffer.concat(chunks).toString(),
        seconds: (performance.now() - started) / 1000,
      });
    };
    child.on('error', (error) => {
      chunks.push(Buffer.from(`${error.message}\n`));
      end(1);
    });
    child.on('close', (code) => {
      end(code ?? 1);
    });
  });
}

const results = await Promise.all(commands.map((c, i) => run(c, i === commands.length - 1)));
for (const { command, output } of results.slice(0, -1)) {
  process.stdout.write(`\n> ${command}\n${output}`);
}
process.stdout.write('\n');
for (const { command, status, seconds } of results) {
  const outcome = status === 0 ? 'ok' : `failed (exit ${status})`;
  process.stdout.write(`${command}: ${outcome} in ${seconds.toFixed(0)} s\n`);
}
process.exitCode = results.find((r) => r.status !== 0)?.status ?? 0;
