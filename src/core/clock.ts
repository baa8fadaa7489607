/** The one source of "now", so tests can move time (expiry, schedules) without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

let override: Clock | undefined;

/** Tests only: replace the clock for the requests that follow. `undefined` restores the system clock. */
export function setClockForTests(clock: Clock | undefined): void {
  override = clock;
}

export function currentClock(): Clock {
  return override ?? systemClock;
}

export const isoNow = (clock: Clock): string => clock.now().toISOString();
