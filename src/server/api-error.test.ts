import { describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../core/tradelab-error.js';
import { statusOf } from './api-error.js';

describe('statusOf', () => {
  it('answers every code that says something is already there with 409 Conflict', () => {
    const existing = (Object.keys(ERROR_CODES) as ErrorCode[]).filter((c) => c.endsWith('_EXISTS'));
    expect(existing).toEqual(
      expect.arrayContaining(['STUDY_EXISTS', 'RUN_EXISTS', 'DATASET_EXISTS']),
    );
    for (const code of existing) expect(statusOf(code), code).toBe(409);
  });

  it('answers a missing thing with 404, a path out of the project with 403, other usage with 400', () => {
    expect(statusOf('DATASET_NOT_FOUND')).toBe(404);
    expect(statusOf('PATH_OUTSIDE_PROJECT')).toBe(403);
    expect(statusOf('INVALID_ARGUMENT')).toBe(400);
    expect(statusOf('DATA_INVALID')).toBe(500);
  });
});
