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
