/**
 * The one source of "now", so tests can move time (expiry, schedules) without sleeping: each
 * request and invocation takes its clock from the Worker's platform (`src/platform.ts`).
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
