import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { LiveEvent } from '../live-events.js';
import type { ServiceContext } from '../service-context.js';

/** Seconds between keep-alive comments, so proxies and SSH tunnels keep the stream open. */
const KEEP_ALIVE_S = 15;

/**
 * `GET /api/events`: server-sent events `job` (a job's state or progress changed), `log` (a job's
 * new log lines), `trial` (a trial ended, in any study, whoever ran it) and `study` (a new study).
 */
export function eventRoutes(ctx: ServiceContext): Hono {
  const app = new Hono();
  app.get('/api/events', (c) =>
    streamSSE(c, async (stream) => {
      const queue: LiveEvent[] = [];
      let wake: (() => void) | undefined;
      const stop = ctx.events.listen((event) => {
        queue.push(event);
        wake?.();
      });
      stream.onAbort(() => {
        stop();
        wake?.();
      });
      await stream.writeSSE({ event: 'hello', data: JSON.stringify({ version: ctx.version }) });
      while (!stream.aborted) {
        const next = queue.shift();
        if (next !== undefined) {
          await stream.writeSSE({ event: next.event, data: JSON.stringify(next.data) });
          continue;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, KEEP_ALIVE_S * 1000).unref();
        });
        wake = undefined;
        // Nothing came while it waited: a comment line keeps proxies from closing the stream.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set while awaiting
        if (!stream.aborted && queue.length === 0) await stream.write(': keep-alive\n\n');
      }
    }),
  );
  return app;
}
