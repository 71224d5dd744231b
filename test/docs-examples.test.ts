/**
 * The docs' command examples print what the docs say: every fenced block of README.md and docs/
 * that starts with `$ tradelab …` is run as written, and the lines under it must be its output,
 * line for line (a line `…` stands for lines left out).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from './support/run-cli.js';

/** One example: where it is, the command's arguments, and the output the doc shows. */
interface DocExample {
  where: string;
  args: string[];
  output: string[];
}

/** The `$ tradelab …` blocks of a Markdown file. */
function examples(file: string): DocExample[] {
  const text = readFileSync(join(REPO_ROOT, file), 'utf8');
  const found: DocExample[] = [];
  for (const match of text.matchAll(/^```[a-z]*\n\$ tradelab (.*)\n([\s\S]*?)^```$/gm)) {
    const line = text.slice(0, match.index).split('\n').length;
    found.push({
      where: `${file}:${line}`,
      args: (match[1] ?? '').trim().split(/\s+/),
      output: (match[2] ?? '').replace(/\n$/, '').split('\n'),
    });
  }
  return found;
}

/**
 * Whether `shown` is `actual` with runs of lines left out where it says `…`: its other lines
 * appear in order, each run of them contiguous, from the first line to the last.
 */
function showsOutput(shown: readonly string[], actual: readonly string[]): boolean {
  const runs: string[][] = [[]];
  for (const line of shown) {
    if (line.trim() === '…') runs.push([]);
    else runs.at(-1)?.push(line.trimEnd());
  }
  let at = 0;
  for (const [i, run] of runs.entries()) {
    const from =
      i === 0 ? 0 : actual.findIndex((_, k) => k >= at && run.every((l, j) => actual[k + j] === l));
    if (from < 0 || !run.every((l, j) => actual[from + j] === l)) return false;
    at = from + run.length;
  }
  return runs.at(-1)?.length === 0 || at === actual.length;
}

const FILES = ['README.md', ...readdirSync(join(REPO_ROOT, 'docs')).map((f) => `docs/${f}`)].filter(
  (f) => f.endsWith('.md'),
);

describe('the docs’ command examples', () => {
  const all = FILES.flatMap(examples);

  it('finds the examples (planner.md has one)', () => {
    expect(all.map((e) => e.where)).toContainEqual(expect.stringMatching(/^docs\/planner\.md:/));
  });

  it.each(all.map((e) => [e.where, e] as const))('%s prints what it shows', async (_, example) => {
    const result = await runCli(example.args);
    expect(result.code, result.stderr).toBe(0);
    const actual = result.stdout
      .replace(/\n$/, '')
      .split('\n')
      .map((l) => l.trimEnd());
    expect(showsOutput(example.output, actual), result.stdout).toBe(true);
  });
});

/**
 * The tour's commands that take minutes on a 2-core machine (timed there): each says how long in
 * its comment, so nobody starts one expecting seconds.
 */
const LONG_TOUR_COMMANDS = [
  'tradelab bench data',
  'tradelab train ppo --data SYN0,SYN1,SYN2:1h',
  'tradelab bench ppo-update',
  'tradelab bench learn ',
  'tradelab study run syn-bal',
  'tradelab bench learn-study',
  'tradelab campaign run',
  'tradelab bench campaign',
  'tradelab pretrain tcn --data',
  'tradelab train forecast',
  'tradelab train ppo --data SYN0,SYN1:15m',
  'tradelab bench tcn',
];

describe("the README's tour", () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const tour = readme.slice(readme.indexOf('## A short tour'));
  const start = tour.indexOf('```sh\n') + '```sh\n'.length;
  const lines = tour.slice(start, tour.indexOf('\n```', start)).replaceAll('\\\n', '').split('\n');

  it.each(LONG_TOUR_COMMANDS)('"%s…" says how long it takes', (command) => {
    const line = lines.find((l) => l.startsWith(command));
    expect(line, command).toBeDefined();
    expect(line?.replace(/^[^#]*#/, '')).toMatch(/\d+(–\d+)? min\b|\bhours\b/);
  });
});
