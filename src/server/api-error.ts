import { z } from '@hono/zod-openapi';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ERROR_CODES, isTradelabError, type ErrorCode } from '../core/index.js';

/*
 * The HTTP error handler's half: every failure becomes `{ error: { code, message, hint } }` with a
 * status a client can act on, never a stack trace or a crash.
 */

/** The body of every error response. */
export const ErrorBodySchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'STUDY_NOT_FOUND' }),
      message: z.string().openapi({ example: 'no study named "ppo-btc"' }),
      hint: z.string().optional(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .openapi('Error');

/** An error body. */
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

/** The status of a TradelabError code. */
export function statusOf(code: ErrorCode): ContentfulStatusCode {
  if (code.endsWith('_NOT_FOUND')) return 404;
  if (code.endsWith('_EXISTS') || code.startsWith('JOB_')) return 409;
  if (code === 'PATH_OUTSIDE_PROJECT') return 403;
  if (code === 'STORAGE_UNAVAILABLE' || code === 'BACKEND_UNAVAILABLE') return 503;
  return ERROR_CODES[code] === 'runtime' ? 500 : 400;
}

/** An error as a response body and status. */
export function errorResponse(error: unknown): { status: ContentfulStatusCode; body: ErrorBody } {
  if (isTradelabError(error)) {
    return {
      status: statusOf(error.code),
      body: {
        error: {
          code: error.code,
          message: error.message,
          ...(error.hint === undefined ? {} : { hint: error.hint }),
          ...(error.details === undefined ? {} : { details: error.details }),
        },
      },
    };
  }
  return {
    status: 500,
    body: {
      error: {
        code: 'INTERNAL',
        message: (error as Error).message,
        hint: 'this is a bug in tradelab: the service log has the stack',
      },
    },
  };
}

/** A 4xx body made here (not from a TradelabError). */
export function clientError(code: string, message: string, hint?: string): ErrorBody {
  return { error: { code, message, ...(hint === undefined ? {} : { hint }) } };
}
