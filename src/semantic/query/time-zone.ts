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
/** Spans kept per isolate: whole UTC days, so a relative range asked again hits the same entry. */
const MAX_CACHED_SPANS = 512;
const DAY_MS = 86_400_000;
const SCAN_STEP_MS = 7 * DAY_MS;

/**
 * The zone's offset at `fromMs` and every change of it up to `toMs`, over the whole UTC days the
 * span touches. Scans week by week and narrows each change to the millisecond it takes effect
 * (a change on a coarser grid would put the times just after it on the old offset); real zones
 * never change twice within a week.
 */
export function offsetTransitions(
  zone: string,
  fromMs: number,
  toMs: number,
): { initial: number; transitions: OffsetTransition[] } {
  const from = Math.floor(fromMs / DAY_MS) * DAY_MS;
  const to = Math.ceil(toMs / DAY_MS) * DAY_MS;
  const key = `${zone}|${from}|${to}`;
  const cached = transitionsCache.get(key);
  if (cached) return cached;
  const initial = offsetMinutesAt(from, zone);
  const transitions: OffsetTransition[] = [];
  let previous = initial;
  for (let start = from; start < to; start += SCAN_STEP_MS) {
    const end = Math.min(start + SCAN_STEP_MS, to);
    const offset = offsetMinutesAt(end, zone);
    if (offset === previous) continue;
    // `low` reads the old offset and `high` the new: halve until they are one millisecond apart.
    let low = start;
    let high = end;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (offsetMinutesAt(middle, zone) === previous) low = middle;
      else high = middle;
    }
    transitions.push({ at: high, offsetMinutes: offset });
    previous = offset;
  }
  const result = { initial, transitions };
  if (transitionsCache.size >= MAX_CACHED_SPANS) transitionsCache.clear();
  transitionsCache.set(key, result);
  return result;
}
