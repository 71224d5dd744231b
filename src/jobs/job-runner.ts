import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { createInterface } from 'node:readline';
import type { JobLogLine, JobQueue, JobRecord } from './job-queue.js';
import { jobProgressOf } from './progress-record.js';

/*
 * The pool that runs a queue's jobs: each job is one tradelab process, so a job crashing (or
 * running out of memory) takes nothing else down, and each process has its own TensorFlow.js
 * runtime, as trial workers do. The pool holds `slots` worker slots; a job occupies as many as it
 * says (a campaign its workers). State, progress, log and result go to the queue as they happen,
 * so a restarted service shows everything; a job whose service died is marked interrupted.
 */

/** What the runner tells its listener. */
export type JobEvent =
  { type: 'job'; job: JobRecord } | { type: 'log'; id: number; lines: Omit<JobLogLine, 'seq'>[] };

/** Options of {@link JobRunner}. */
export interface JobRunnerOptions {
  queue: JobQueue;
  /** Worker slots: how many one-slot jobs run at once. */
  slots: number;
  /** The program and its first arguments, e.g. `[process.execPath, '/…/bin/tradelab.js']`. */
  command: readonly string[];
  /** The project root: where jobs run. */
  cwd: string;
  /** The jobs' environment. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Arguments added after each job's own (the service's setting flags). Default none. */
  extraArgs?: readonly string[];
  /** How often the queue is polled for new jobs and cancellations. Default 500 ms. */
  pollMs?: number;
  /** How often running jobs are marked alive. Default 5 s. */
  heartbeatMs?: number;
  /** A running job with no heartbeat for this long is interrupted. Default 60 s. */
  staleMs?: number;
  /** Time a cancelled job has to stop after SIGTERM before SIGKILL. Default 20 s. */
  cancelGraceMs?: number;
  /** Called on every change: state, progress, log lines. */
  onEvent?: (event: JobEvent) => void;
}

/** A job this runner is running. */
interface Running {
  job: JobRecord;
  child: ChildProcess;
  pending: Omit<JobLogLine, 'seq'>[];
  result: unknown[];
  lastError: string | undefined;
  killTimer: NodeJS.Timeout | undefined;
  /** Why it is being stopped: cancelled, or the service is shutting down; undefined if not. */
  stopping: 'cancel' | 'shutdown' | undefined;
  exited: Promise<void>;
}

/** The most JSON objects a job keeps from its stdout. */
const MAX_RESULT_ROWS = 1000;
/** How often buffered log lines are written. */
const LOG_FLUSH_MS = 250;

/** Whether process `pid` on this host is alive. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs a queue's jobs in worker processes; see the file comment. */
export class JobRunner {
  /** This runner's name in the queue: `host:pid`. */
  readonly id = `${hostname()}:${process.pid}`;
  private readonly running = new Map<number, Running>();
  private readonly timers: NodeJS.Timeout[] = [];
  private polling: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(private readonly options: JobRunnerOptions) {}

  /** Slots in use now. */
  get busySlots(): number {
    let used = 0;
    for (const r of this.running.values()) used += r.job.slots;
    return used;
  }

  /**
   * Marks the jobs of runners that died as interrupted (any earlier run of this service among
   * them), then starts taking jobs. Returns the interrupted ones.
   */
  async start(): Promise<JobRecord[]> {
    const { queue } = this.options;
    const here = hostname();
    const dead = new Set<string>([this.id]);
    for (const job of await queue.list({ states: ['running'], limit: 10_000 })) {
      const [host, pid] = (job.runner ?? '').split(':');
      if (host === here && pid !== undefined && !isAlive(Number(pid))) dead.add(job.runner ?? '');
    }
    const interrupted = await queue.interruptStale(this.staleMs, [...dead]);
    for (const job of interrupted) this.emit({ type: 'job', job });
    const every = (ms: number, fn: () => Promise<unknown>): void => {
      const timer = setInterval(() => {
        fn().catch((error: unknown) => {
          this.report(error);
        });
      }, ms);
      timer.unref();
      this.timers.push(timer);
    };
    every(this.options.pollMs ?? 500, () => this.poll());
    every(this.options.heartbeatMs ?? 5000, () => this.beat());
    every(LOG_FLUSH_MS, () => this.flushAll());
    this.wake();
    return interrupted;
  }

  /** Looks at the queue now (after a submit or a cancel) instead of at the next poll. */
  wake(): void {
    this.poll().catch((error: unknown) => {
      this.report(error);
    });
  }

  /**
   * Stops taking jobs and stops the running ones (SIGTERM, then SIGKILL after the grace time);
   * they end as interrupted, so a retry can resume them.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    await this.polling;
    const exits = [...this.running.values()].map((r) => {
      r.stopping ??= 'shutdown';
      this.terminate(r);
      return r.exited;
    });
    await Promise.all(exits);
  }

  private get staleMs(): number {
    return this.options.staleMs ?? 60_000;
  }

  private emit(event: JobEvent): void {
    this.options.onEvent?.(event);
  }

  private report(error: unknown): void {
    process.stderr.write(`job runner: ${(error as Error).message}\n`);
  }

  /** One look at the queue; overlapping calls fold into one more look. */
  private poll(): Promise<void> {
    if (this.polling !== undefined) {
      this.again = true;
      return this.polling;
    }
    this.polling = (async () => {
      try {
        do {
          this.again = false;
          await this.checkCancels();
          await this.claimJobs();
          // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set by a poll() while this one awaited
        } while (this.again && !this.stopped);
      } finally {
        this.polling = undefined;
      }
    })();
    return this.polling;
  }

  private async claimJobs(): Promise<void> {
    const { queue, slots } = this.options;
    while (!this.stopped) {
      const free = slots - this.busySlots;
      if (free <= 0) return;
      const job = await queue.claim(this.id, free);
      if (job === undefined) return;
      this.emit({ type: 'job', job });
      this.launch(job);
    }
  }

  private async checkCancels(): Promise<void> {
    if (this.running.size === 0) return;
    for (const r of this.running.values()) {
      if (r.stopping !== undefined) continue;
      const current = await this.options.queue.get(r.job.id);
      if (current.cancelRequested) {
        r.stopping = 'cancel';
        this.terminate(r);
      }
    }
  }

  private async beat(): Promise<void> {
    await this.options.queue.heartbeat([...this.running.keys()]);
    await this.options.queue.interruptStale(this.staleMs);
  }

  private terminate(r: Running): void {
    if (r.child.exitCode !== null || r.child.signalCode !== null) return;
    r.child.kill('SIGTERM');
    r.killTimer ??= setTimeout(() => r.child.kill('SIGKILL'), this.options.cancelGraceMs ?? 20_000);
  }

  private launch(job: JobRecord): void {
    const { command, cwd, env, extraArgs = [] } = this.options;
    const [program, ...first] = command;
    // The IPC channel is how the job notices that this service died: it stops when it closes.
    const child = spawn(program ?? process.execPath, [...first, ...job.argv, ...extraArgs], {
      cwd,
      env: env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    });
    let exitResolve: () => void = () => undefined;
    const r: Running = {
      job,
      child,
      pending: [],
      result: [],
      lastError: undefined,
      killTimer: undefined,
      stopping: undefined,
      exited: new Promise((resolve) => (exitResolve = resolve)),
    };
    this.running.set(job.id, r);
    if (child.pid !== undefined) {
      this.options.queue.setPid(job.id, child.pid).catch((error: unknown) => {
        this.report(error);
      });
    }
    const lines = (stream: 'stdout' | 'stderr'): void => {
      const source = child[stream];
      if (source === null) return;
      createInterface({ input: source, crlfDelay: Infinity }).on('line', (text) => {
        this.onLine(r, stream, text);
      });
    };
    lines('stdout');
    lines('stderr');
    child.on('error', (error) => {
      r.lastError = `could not start the job's process: ${error.message}`;
    });
    child.on('close', (code, signal) => {
      this.onExit(r, code, signal)
        .catch((error: unknown) => {
          this.report(error);
        })
        .finally(exitResolve);
    });
  }

  private onLine(r: Running, stream: 'stdout' | 'stderr', text: string): void {
    const at = Date.now();
    if (stream === 'stderr') {
      // The plain twin of a progress record: the record is the job's progress, not its log.
      if (text.startsWith('progress: ')) return;
      if (/^error\b/i.test(text)) r.lastError = text;
    } else if (text.startsWith('{')) {
      let record: unknown;
      try {
        record = JSON.parse(text);
      } catch {
        // Not a JSON line: a plain line of output, kept in the log only.
      }
      const progress = jobProgressOf(record, at);
      if (progress !== undefined) {
        // The command's figures (its plain `progress:` line for people is in the log already).
        r.job = { ...r.job, progress };
        this.options.queue.setProgress(r.job.id, progress).catch((error: unknown) => {
          this.report(error);
        });
        this.emit({ type: 'job', job: r.job });
        return;
      }
      if (record !== undefined && r.result.length < MAX_RESULT_ROWS) r.result.push(record);
    }
    r.pending.push({ stream, text, at });
  }

  private async flush(r: Running): Promise<void> {
    if (r.pending.length === 0) return;
    const lines = r.pending;
    r.pending = [];
    await this.options.queue.appendLog(r.job.id, lines);
    this.emit({ type: 'log', id: r.job.id, lines });
  }

  private async flushAll(): Promise<void> {
    for (const r of this.running.values()) await this.flush(r);
  }

  private async onExit(r: Running, code: number | null, signal: string | null): Promise<void> {
    if (r.killTimer !== undefined) clearTimeout(r.killTimer);
    await this.flush(r);
    this.running.delete(r.job.id);
    const { queue } = this.options;
    const how = signal === null ? `exit code ${code ?? '?'}` : `signal ${signal}`;
    // A job that ended well succeeded, whatever was asked of it meanwhile. One the stopping
    // service cut short did not fail: it is interrupted, and can be retried.
    const state =
      code === 0 && signal === null
        ? 'succeeded'
        : r.stopping === 'cancel'
          ? 'cancelled'
          : r.stopping === 'shutdown'
            ? 'interrupted'
            : 'failed';
    const job = await queue.finish(r.job.id, {
      state,
      exitCode: code,
      error:
        state === 'interrupted'
          ? 'interrupted: the service stopped'
          : state === 'failed'
            ? (r.lastError ?? `the job's process ended with ${how}`)
            : null,
      result: r.result,
    });
    this.emit({ type: 'job', job });
    if (!this.stopped) this.wake();
  }
}
