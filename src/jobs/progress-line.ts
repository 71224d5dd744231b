import type { JobProgress } from './job-queue.js';

/**
 * A command's plain progress line on stderr (what it prints when stderr is not a terminal, every
 * `--progress-interval` seconds): `progress: 42% (12/28 trials), 74 s/trial, ETA 19 min, …` or
 * `progress: 3/10 trials done (30%): …`; the first percentage is the job's. Returns the job
 * progress it says, or undefined for any other line.
 */
export function parseProgressLine(line: string, at: number): JobProgress | undefined {
  if (!line.startsWith('progress: ')) return undefined;
  const text = line.slice('progress: '.length).trim();
  const percent = /(\d{1,3})%/.exec(text);
  return {
    percent: percent === null ? null : Math.min(100, Number(percent[1])),
    text,
    at,
  };
}
