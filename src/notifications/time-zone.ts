/**
 * The local-time rules of schedules over the zone arithmetic of `core/time-zone.ts`: an instant
 * written as local time with its offset, and the mapping of a local day's times to instants (a
 * skipped time runs after the gap, a repeated one once). Times are epoch milliseconds (UTC)
 * unless named "local".
 */

import { offsetAt } from '../core/time-zone';

const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** `instant` as local time with its offset: `2026-03-29T03:00:00+02:00`. */
export function localIso(instant: number, timeZone: string): string {
  const offset = offsetAt(instant, timeZone);
  const wall = new Date(instant + offset).toISOString().slice(0, 19);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset) / MINUTE_MS;
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${wall}${sign}${hh}:${mm}`;
}

/**
 * Maps the local wall times of one local day (minutes since local midnight) to instants under
 * the local-time rules of schedules: a time skipped by the clocks going forward runs at the first minute
 * after the gap; a time that happens twice runs at its first occurrence.
 */
export function dayMapper(localMidnight: number, timeZone: string): (minuteOfDay: number) => number {
  // Every instant whose local date is this day lies between these probes (offsets are ±14 h).
  const before = offsetAt(localMidnight - DAY_MS, timeZone);
  const after = offsetAt(localMidnight + 2 * DAY_MS, timeZone);
  if (before === after) return (m) => localMidnight + m * MINUTE_MS - before;
  return (m) => {
    const wall = localMidnight + m * MINUTE_MS;
    const valid = [wall - before, wall - after].filter((t) => t + offsetAt(t, timeZone) === wall);
    if (valid.length > 0) return Math.min(...valid);
    // In the gap: the clocks jump between these two readings; find the minute they jump.
    let lo = wall - Math.max(before, after);
    let hi = wall - Math.min(before, after);
    const offsetLo = offsetAt(lo, timeZone);
    while (hi - lo > MINUTE_MS) {
      const mid = lo + Math.floor((hi - lo) / 2 / MINUTE_MS) * MINUTE_MS;
      if (offsetAt(mid, timeZone) === offsetLo) lo = mid;
      else hi = mid;
    }
    return hi;
  };
}
