/**
 * IANA time zones with nothing but `Intl`: the canonical name of a zone, the wall-clock reading
 * of an instant in a zone, offsets, and the instant of a wall-clock time. One cached
 * `Intl.DateTimeFormat` per zone serves every caller: schedules (notifications), the semantic
 * layer's time arithmetic and the times a render writes. Instants are epoch milliseconds (UTC).
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

const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The zone's formatter, to the second (throws a RangeError for a zone `Intl` does not know). */
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

let zoneSpellings: Map<string, string> | undefined;

/** The runtime's zone names by their lower case (those `Intl.supportedValuesOf` lists). */
function spellingOf(name: string): string | undefined {
  if (!zoneSpellings) {
    zoneSpellings = new Map();
    try {
      for (const zone of Intl.supportedValuesOf('timeZone')) zoneSpellings.set(zone.toLowerCase(), zone);
    } catch {
      // A runtime without the list: names keep the case they were sent in.
    }
  }
  return zoneSpellings.get(name.toLowerCase());
}

/**
 * The IANA name `name` spells, in its proper case, or null when it is not one. The name itself is
 * kept, not the one `Intl` resolves it to: ICU resolves some current names to links they replaced
 * (`Asia/Kolkata` to `Asia/Calcutta`, `Europe/Kyiv` to `Europe/Kiev`). UTC offsets such as
 * "+02:00" (which newer Intl versions accept) are refused: they have no daylight-saving rules.
 */
export function canonicalTimeZone(name: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(name)) return null;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
  if (resolved.toLowerCase() === name.toLowerCase()) return resolved;
  return spellingOf(name) ?? name;
}

/** Whether `Intl` knows the zone (IANA names, `UTC`, and whatever else the runtime takes). */
export function isKnownTimeZone(zone: string): boolean {
  if (zone.trim() === '') return false;
  try {
    formatterOf(zone);
    return true;
  } catch {
    return false;
  }
}

/**
 * Names of UTC itself, whose wall clock is the instant's UTC reading: read without `Intl` (whose
 * `formatToParts` is the dearest step of resolving a date range, and most queries ask in UTC).
 */
const UTC_NAMES = new Set(['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT']);

/** The wall-clock time in `zone` at the UTC instant `ms` (throws for an unknown zone). */
export function utcToZoned(ms: number, zone: string): LocalTime {
  if (UTC_NAMES.has(zone)) return msToLocal(ms);
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

/** `ms` without its milliseconds (toward the past). */
export function wholeSeconds(ms: number): number {
  return ms - (((ms % 1000) + 1000) % 1000);
}

/** The wall-clock reading at `instant` in `zone`, to the second, as if that reading were UTC (ms). */
export function wallClock(instant: number, zone: string): number {
  return localToMs({ ...utcToZoned(instant, zone), millisecond: 0 });
}

/** The zone's offset from UTC at `instant`, in ms (positive east of Greenwich). */
export function offsetAt(instant: number, zone: string): number {
  const seconds = wholeSeconds(instant);
  return wallClock(seconds, zone) - seconds;
}

/** Minutes east of UTC in `zone` at the UTC instant `ms`. */
export function offsetMinutesAt(ms: number, zone: string): number {
  return Math.round(offsetAt(ms, zone) / 60_000);
}

/**
 * Whether the wall-clock reading at `instant` in `zone` also reads at another instant: it falls
 * in the hour (or half hour) a clock set back repeats, such as 01:30 on a November Sunday in New
 * York, which is first EDT and then EST.
 */
export function wallClockRepeats(instant: number, zone: string): boolean {
  const own = offsetAt(instant, zone);
  return [instant - DAY_MS, instant + DAY_MS].some((near) => {
    const other = offsetAt(near, zone);
    // The instant whose reading under the other offset is this one's.
    return other !== own && offsetAt(instant + own - other, zone) === other;
  });
}

/**
 * The UTC instant of a wall-clock time in `zone`. A time skipped by a DST change resolves with
 * the offset before the change (02:30 on a spring-forward day is 03:30 local); a repeated one
 * takes its first occurrence. (Schedules map skipped times their own way: notifications' `dayMapper`.)
 */
export function zonedTimeToUtc(local: LocalTime, zone: string): number {
  const naive = localToMs(local);
  const before = naive - offsetMinutesAt(naive - DAY_MS, zone) * 60_000;
  const after = naive - offsetMinutesAt(naive + DAY_MS, zone) * 60_000;
  const reads = (ms: number) => localToMs(utcToZoned(wholeSeconds(ms), zone)) === wholeSeconds(naive);
  const candidates = [before, after].filter(reads);
  return candidates.length > 0 ? Math.min(...candidates) : before;
}
