import * as tf from './tfjs.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { useBackend } from './backends.js';
import { memoryReport } from './memory-report.js';

beforeAll(async () => {
  await useBackend('wasm');
});

describe('memory report', () => {
  it('counts tensors and bytes as they come and go, and the wasm heap', () => {
    const before = memoryReport();
    expect(before.backend).toBe('wasm');
    const t = tf.zeros([256, 256]);
    const during = memoryReport();
    expect(during.tensors).toBe(before.tensors + 1);
    expect(during.tensorBytes).toBe(before.tensorBytes + 256 * 256 * 4);
    expect(during.backendHeapBytes).toBeGreaterThanOrEqual(256 * 256 * 4);
    t.dispose();
    const after = memoryReport();
    expect(after.tensors).toBe(before.tensors);
    expect(after.tensorBytes).toBe(before.tensorBytes);
    expect(after.rssBytes).toBeGreaterThan(0);
  });
});
