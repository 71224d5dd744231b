/*
 * Typed arrays for one sampler call, carved from buffers kept across calls. A TPE suggestion
 * builds two Parzen estimators of a dozen arrays each; allocated fresh, every array over 64 bytes
 * gets its own off-heap backing store, and the garbage collector took a quarter of the time.
 * Inside withScratch, float64/int32/uint8 hand out zeroed views of shared buffers instead; they
 * are valid until the outermost withScratch returns. Outside it they allocate as usual.
 */

interface Pool<T extends Float64Array | Int32Array | Uint8Array> {
  buffer: T;
  used: number;
  make: (n: number) => T;
}

function pool<T extends Float64Array | Int32Array | Uint8Array>(make: (n: number) => T): Pool<T> {
  return { buffer: make(4096), used: 0, make };
}

const f64 = pool((n) => new Float64Array(n));
const i32 = pool((n) => new Int32Array(n));
const u8 = pool((n) => new Uint8Array(n));
let depth = 0;

/** Runs `fn` with scratch arrays; they are all released when the outermost call returns. */
export function withScratch<T>(fn: () => T): T {
  depth++;
  try {
    return fn();
  } finally {
    if (--depth === 0) {
      f64.used = 0;
      i32.used = 0;
      u8.used = 0;
    }
  }
}

function carve<T extends Float64Array | Int32Array | Uint8Array>(p: Pool<T>, n: number): T {
  if (depth === 0) return p.make(n);
  if (p.used + n > p.buffer.length) {
    // Views handed out earlier keep the old buffer alive until the call ends.
    p.buffer = p.make(Math.max(2 * p.buffer.length, 2 * n));
    p.used = 0;
  }
  const view = p.buffer.subarray(p.used, p.used + n) as T;
  view.fill(0);
  p.used += n;
  return view;
}

/** A zeroed Float64Array of length n (scratch inside withScratch). */
export function float64(n: number): Float64Array {
  return carve(f64, n);
}

/** A zeroed Int32Array of length n (scratch inside withScratch). */
export function int32(n: number): Int32Array {
  return carve(i32, n);
}

/** A zeroed Uint8Array of length n (scratch inside withScratch). */
export function uint8(n: number): Uint8Array {
  return carve(u8, n);
}
