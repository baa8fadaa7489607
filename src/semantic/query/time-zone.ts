/**
 * Time-zone arithmetic with nothing but `Intl`: offsets, local wall-clock parts of an instant,
 * the instant of a local wall-clock time, and the offset transitions of a zone over a span
 * (what SQLite, which has no time zones, needs to convert times to local time).
 */

/** A wall-clock time; `month` 1-12. */
export interface LocalTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millisecond: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Whether `Intl` knows the zone (IANA names, `UTC`). */
export function isValidTimeZone(zone: string): boolean {
  if (zone.trim() === '') return false;
  try {
    formatterOf(zone);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock time in `zone` at the UTC instant `ms`. */
export function utcToZoned(ms: number, zone: string): LocalTime {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(zone).formatToParts(new Date(ms))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
    millisecond: ((ms % 1000) + 1000) % 1000,
  };
}

/** A wall-clock time read as if it were UTC: the arithmetic of local calendars. */
export function localToMs(local: LocalTime): number {
  const date = new Date(0);
  date.setUTCFullYear(local.year, local.month - 1, local.day);
  date.setUTCHours(local.hour, local.minute, local.second, local.millisecond);
  return date.getTime();
}

export function msToLocal(ms: number): LocalTime {
  const date = new Date(ms);
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
    millisecond: date.getUTCMilliseconds(),
  };
}

/** Minutes east of UTC in `zone` at the UTC instant `ms`. */
export function offsetMinutesAt(ms: number, zone: string): number {
  const whole = wholeSeconds(ms);
  return Math.round((localToMs(utcToZoned(whole, zone)) - whole) / 60_000);
}

/**
 * The UTC instant of a wall-clock time in `zone`. A time skipped by a DST change resolves with
 * the offset before the change (02:30 on a spring-forward day is 03:30 local); a repeated one
 * takes its first occurrence.
 */
export function zonedTimeToUtc(local: LocalTime, zone: string): number {
  const naive = localToMs(local);
  const before = naive - offsetMinutesAt(naive - 86_400_000, zone) * 60_000;
  const after = naive - offsetMinutesAt(naive + 86_400_000, zone) * 60_000;
  const reads = (ms: number) => localToMs(utcToZoned(wholeSeconds(ms), zone)) === wholeSeconds(naive);
  const candidates = [before, after].filter(reads);
  return candidates.length > 0 ? Math.min(...candidates) : before;
}

function wholeSeconds(ms: number): number {
  return ms - (((ms % 1000) + 1000) % 1000);
}

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
