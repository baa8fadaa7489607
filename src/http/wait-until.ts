import type { Context } from 'hono';

/**
 * The request's `waitUntil` (work that may finish after the answer, such as cache writes), or
 * a no-op hand-off where there is no execution context (an `app.request` without one): the
 * promise then runs on its own.
 */
export function waitUntilOf(c: Context): (p: Promise<unknown>) => void {
  return (p) => {
    try {
      c.executionCtx.waitUntil(p);
    } catch {
      // No execution context.
    }
  };
}

/** The request's execution context, if it has one (an `app.request` may not). */
export function executionContextOf(c: Context): ExecutionContext | undefined {
  try {
    return c.executionCtx as unknown as ExecutionContext;
  } catch {
    return undefined;
  }
}
