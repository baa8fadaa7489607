/**
 * The offset transitions of a zone over a span: what SQLite, which has no time zones, needs to
 * convert times to local time. The zone arithmetic itself is `core/time-zone.ts`.
 */
import { offsetMinutesAt } from '../../core/time-zone';

/** An instant at which a zone's offset changes, and the offset from then on. */
export interface OffsetTransition {
  at: number;
  offsetMinutes: number;
}

const transitionsCache = new Map<string, { initial: number; transitions: OffsetTransition[] }>();
const SCAN_STEP_MS = 7 * 86_400_000;

/**
 * The zone's offset at `fromMs` and every change of it up to `toMs`. Scans week by week and
 * narrows each change to the minute; real zones never change twice within a week.
 */
export function offsetTransitions(
  zone: string,
  fromMs: number,
  toMs: number,
): { initial: number; transitions: OffsetTransition[] } {
  const key = `${zone}|${fromMs}|${toMs}`;
  const cached = transitionsCache.get(key);
  if (cached) return cached;
  const initial = offsetMinutesAt(fromMs, zone);
  const transitions: OffsetTransition[] = [];
  let previous = initial;
  for (let start = fromMs; start < toMs; start += SCAN_STEP_MS) {
    const end = Math.min(start + SCAN_STEP_MS, toMs);
    const offset = offsetMinutesAt(end, zone);
    if (offset === previous) continue;
    let low = start;
    let high = end;
    while (high - low > 60_000) {
      const middle = low + Math.floor((high - low) / 120_000) * 60_000;
      if (offsetMinutesAt(middle, zone) === previous) low = middle;
      else high = middle;
    }
    transitions.push({ at: high, offsetMinutes: offset });
    previous = offset;
  }
  const result = { initial, transitions };
  transitionsCache.set(key, result);
  return result;
}
