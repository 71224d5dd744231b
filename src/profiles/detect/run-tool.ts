import { spawn } from 'node:child_process';

/** How long to wait for a tool's pipes to close after it exits. */
const EXIT_GRACE_MS = 100;

/** The outcome of running one external tool with a time limit. */
export type ToolRun =
  | { status: 'ok'; stdout: string; stderr: string; durationMs: number }
  | { status: 'missing'; durationMs: number }
  | {
      status: 'failed';
      exitCode: number | null;
      signal: string | null;
      stdout: string;
      stderr: string;
      durationMs: number;
    }
  | { status: 'timeout'; durationMs: number };

/** Options for {@link runTool}. */
export interface RunToolOptions {
  /** Kill the tool (and anything it started) after this long. */
  timeoutMs: number;
  /** Environment for the tool; `PATH` decides which binary runs. Default: `process.env`. */
  env?: Record<string, string | undefined>;
  /** Output beyond this many bytes is dropped. Default 1 MiB. */
  maxBytes?: number;
}

/**
 * Runs a command without a shell and never hangs: on timeout its whole process group is killed and
 * the result returns at once, even if a grandchild still holds the pipes open.
 */
export function runTool(
  command: string,
  args: readonly string[],
  options: RunToolOptions,
): Promise<ToolRun> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  return new Promise((resolvePromise) => {
    let settled = false;
    const finish = (run: ToolRun): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolvePromise(run);
    };
    const child = spawn(command, args, {
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let bytes = 0;
    const collect = (sink: Buffer[]) => (chunk: Buffer) => {
      const room = maxBytes - bytes;
      if (room <= 0) return;
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      bytes += kept.length;
      sink.push(kept);
    };
    child.stdout.on('data', collect(stdout));
    child.stderr.on('data', collect(stderr));
    const killGroup = (): void => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // The group is already gone: nothing left to kill.
        }
      }
      child.stdout.destroy();
      child.stderr.destroy();
    };
    const timer = setTimeout(() => {
      killGroup();
      finish({ status: 'timeout', durationMs: elapsed() });
    }, options.timeoutMs);
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') finish({ status: 'missing', durationMs: elapsed() });
      else
        finish({
          status: 'failed',
          exitCode: null,
          signal: null,
          stdout: '',
          stderr: error.message,
          durationMs: elapsed(),
        });
    });
    const done = (code: number | null, signal: string | null): void => {
      const out = Buffer.concat(stdout).toString('utf8');
      const err = Buffer.concat(stderr).toString('utf8');
      if (code === 0) finish({ status: 'ok', stdout: out, stderr: err, durationMs: elapsed() });
      else
        finish({
          status: 'failed',
          exitCode: code,
          signal,
          stdout: out,
          stderr: err,
          durationMs: elapsed(),
        });
    };
    child.on('close', done);
    // A tool that exited but left a child holding its pipes open has said all it will: take its
    // output after a short grace for the last bytes, and kill what it left behind.
    child.on('exit', (code, signal) => {
      setTimeout(() => {
        if (settled) return;
        killGroup();
        done(code, signal);
      }, EXIT_GRACE_MS).unref();
    });
  });
}
