/** An event of GET /api/events. */
export interface LiveMessage {
  event: 'job' | 'log' | 'trial' | 'study';
  data: unknown;
}

type Listener = (message: LiveMessage) => void;

const listeners = new Set<Listener>();
let source: EventSource | undefined;

/** Connects to the service's event stream once; the header shows whether it is live. */
export function connectLive(status: HTMLElement): void {
  if (source !== undefined) return;
  source = new EventSource('/api/events');
  const set = (text: string, cls: string): void => {
    status.textContent = text;
    status.className = `status ${cls}`;
  };
  source.addEventListener('open', () => {
    set('live', 'live');
  });
  source.addEventListener('error', () => {
    set('reconnecting…', 'down');
  });
  for (const event of ['job', 'log', 'trial', 'study'] as const) {
    source.addEventListener(event, (e) => {
      const data = JSON.parse((e as MessageEvent<string>).data) as unknown;
      for (const listener of listeners) listener({ event, data });
    });
  }
}

/** Calls `listener` on every live event until the returned function is called. */
export function onLive(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** `fn`, called at most once per `ms` however often it is asked (trailing call kept). */
export function throttle(fn: () => void, ms: number): () => void {
  let timer: number | undefined;
  let last = 0;
  return () => {
    if (timer !== undefined) return;
    const wait = Math.max(0, last + ms - Date.now());
    timer = window.setTimeout(() => {
      timer = undefined;
      last = Date.now();
      fn();
    }, wait);
  };
}
