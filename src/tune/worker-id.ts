import { hostname } from 'node:os';

let workers = 0;

/** A name for this process as a worker, unique across machines: host, pid and a counter. */
export function newWorkerId(): string {
  return `${hostname()}:${process.pid}:${workers++}`;
}
