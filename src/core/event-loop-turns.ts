/**
 * Lets the event loop take a turn (signal handlers, timers, output) once `intervalMs` have passed
 * since its last one. A PPO update or a rollout runs synchronous kernels for seconds; without
 * turns, a Ctrl-C waited for the update's end, and a second one could not quit at once because
 * both were handled together. A turn costs microseconds; a call before the interval costs nothing.
 */
export class EventLoopTurns {
  private last = performance.now();

  constructor(private readonly intervalMs = 50) {}

  /** Yields to the event loop (setImmediate) if the interval has passed. */
  async maybeYield(): Promise<void> {
    if (performance.now() - this.last < this.intervalMs) return;
    await new Promise<void>((resolve) => {
      setImmediate(resolve);
    });
    this.last = performance.now();
  }
}
