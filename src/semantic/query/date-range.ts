import { type LocalTime, localToMs, msToLocal, utcToZoned, zonedTimeToUtc } from '../../core/time-zone';
import { QueryError } from './query-error';

/**
 * Date ranges as Cube's API gateway reads them, resolved to inclusive UTC instants in the
 * query's time zone: absolute `[from, to]` and relative expressions (`today`, `last month`,
 * `last 7 days`, `from 3 days ago to now`, …). Weeks start on Monday.
 */

const UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
type Unit = (typeof UNITS)[number];

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** Inclusive bounds, as UTC instants (ms). */
export type Instants = [number, number];

/**
 * The instants a date may resolve to: the years 0001 to 9999 (UTC), the years an ISO 8601 date
 * writes in four digits and both stores read. Past them the arithmetic of a relative range
 * (`last 999999999 years`) leaves what `Date` can hold at all.
 */
const FIRST_INSTANT = -62_135_596_800_000; // 0001-01-01T00:00:00.000Z
const LAST_INSTANT = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
/** Wall-clock arithmetic stays this far inside what `Date` holds (±275,760 years). */
const ARITHMETIC_LIMIT = 8_640_000_000_000_000 / 2;

const YEARS_TEXT = 'the years 0001 to 9999';

/** A date that left the representable years (a 400); `withinYears` names what the caller sent. */
class OutOfYears extends QueryError {
  constructor() {
    super(`A date is outside ${YEARS_TEXT}`);
  }
}

/** Runs `resolve`, turning a date past the representable years into a 400 naming `what`. */
export function withinYears<T>(what: string, resolve: () => T): T {
  try {
    return resolve();
  } catch (err) {
    if (err instanceof OutOfYears) throw new QueryError(`${what} is outside ${YEARS_TEXT}`);
    throw err;
  }
}

/** `ms`, checked to be an instant of the representable years. */
export function inYears(ms: number): number {
  if (!(ms >= FIRST_INSTANT && ms <= LAST_INSTANT)) throw new OutOfYears();
  return ms;
}

/** `ms`, checked to be one calendar arithmetic can go on with. */
function computable(ms: number): number {
  if (!(Math.abs(ms) <= ARITHMETIC_LIMIT)) throw new OutOfYears();
  return ms;
}

export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Resolves a time dimension's `dateRange` (or an `inDateRange` pair) to inclusive UTC bounds. */
export function resolveDateRange(
  range: string | [string, string],
  zone: string,
  now: Date,
): [string, string] {
  return withinYears(`Date range ${JSON.stringify(range)}`, () => {
    if (Array.isArray(range)) {
      const [from, to] = range;
      return [
        toIso(inYears(pointOf(from, zone, now, 'start', range))),
        toIso(inYears(pointOf(to, zone, now, 'end', range))),
      ];
    }
    const [from, to] = relativeRange(range, zone, now.getTime());
    return [toIso(inYears(from)), toIso(inYears(to))];
  });
}

/**
 * The first (`start`) or last (`end`) instant a date or timestamp stands for: a date is the
 * whole local day; a timestamp without offset is local; with `Z` or an offset, absolute.
 */
export function boundOf(value: string, zone: string, side: 'start' | 'end'): string {
  return withinYears(`Date ${JSON.stringify(value)}`, () => {
    const ms = absolutePoint(value.trim(), zone, side);
    if (ms === undefined) throw new QueryError(`Can't parse date: ${value}`);
    return toIso(inYears(ms));
  });
}

function pointOf(value: string, zone: string, now: Date, side: 'start' | 'end', whole: unknown): number {
  const text = typeof value === 'string' ? value.trim() : '';
  const ms = absolutePoint(text, zone, side) ?? relativePoint(text.toLowerCase(), zone, now.getTime(), side);
  if (ms === undefined) throw new QueryError(`Can't parse date range: ${JSON.stringify(whole)}`);
  return ms;
}

/** An ISO 8601 date or timestamp as a UTC instant (ms); text without an offset is UTC. */
export function instantOfText(text: string): number | undefined {
  return absolutePoint(text.trim(), 'UTC', 'start');
}

function absolutePoint(text: string, zone: string, side: 'start' | 'end'): number | undefined {
  const date = DATE.exec(text);
  if (date) {
    const day = validLocal(Number(date[1]), Number(date[2]), Number(date[3]), 0, 0, 0, 0);
    if (!day) return undefined;
    return side === 'start' ? zonedTimeToUtc(day, zone) : endOf(day, 'day', zone);
  }
  const stamp = TIMESTAMP.exec(text);
  if (!stamp) return undefined;
  const millisecond = stamp[7] ? Number(stamp[7].slice(0, 3).padEnd(3, '0')) : 0;
  const local = validLocal(
    Number(stamp[1]),
    Number(stamp[2]),
    Number(stamp[3]),
    Number(stamp[4]),
    Number(stamp[5]),
    Number(stamp[6] ?? 0),
    millisecond,
  );
  if (!local) return undefined;
  const zoneText = stamp[8];
  if (!zoneText) return zonedTimeToUtc(local, zone);
  if (zoneText.toUpperCase() === 'Z') return localToMs(local);
  const sign = zoneText.startsWith('-') ? -1 : 1;
  const digits = zoneText.slice(1).replace(':', '');
  const offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2)));
  return localToMs(local) - offset * 60_000;
}

function validLocal(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  millisecond: number,
): LocalTime | undefined {
  const local = { year, month, day, hour, minute, second, millisecond };
  const back = msToLocal(localToMs(local));
  const same = back.year === year && back.month === month && back.day === day;
  return same && hour < 24 && minute < 60 && second < 60 ? local : undefined;
}

/** `now`, `today`, `N days ago`, `N days from now`, … inside `from … to …`. */
function relativePoint(text: string, zone: string, now: number, side: 'start' | 'end'): number | undefined {
  if (text === 'now') return now;
  const day = { today: 0, yesterday: -1, tomorrow: 1 }[text];
  if (day !== undefined) {
    const start = addUnits(startOf(utcToZoned(now, zone), 'day'), 'day', day);
    return side === 'start' ? zonedTimeToUtc(start, zone) : endOf(start, 'day', zone);
  }
  const match = /^(\d+)\s+([a-z]+?)s?\s+(ago|from now)$/.exec(text);
  const unit = match && unitOf(match[2] ?? '');
  if (!match || !unit) return undefined;
  const count = Number(match[1]) * (match[3] === 'ago' ? -1 : 1);
  if (unit === 'second' || unit === 'minute' || unit === 'hour')
    return computable(now + count * UNIT_MS[unit]);
  return zonedTimeToUtc(addUnits(utcToZoned(now, zone), unit, count), zone);
}

const UNIT_MS = { second: 1000, minute: 60_000, hour: 3_600_000 } as const;

function unitOf(word: string): Unit | undefined {
  return UNITS.find((unit) => unit === word);
}

function relativeRange(text: string, zone: string, now: number): Instants {
  const phrase = text.trim().toLowerCase().replace(/\s+/g, ' ');
  const today = utcToZoned(now, zone);
  const span = (unit: Unit, fromUnits: number, toUnits: number): Instants => {
    const base = startOf(today, unit);
    return [
      zonedTimeToUtc(addUnits(base, unit, fromUnits), zone),
      endOf(addUnits(base, unit, toUnits), unit, zone),
    ];
  };
  const day = { today: 0, yesterday: -1, tomorrow: 1 }[phrase];
  if (day !== undefined) return span('day', day, day);

  const single = /^(this|last|next) ([a-z]+)$/.exec(phrase);
  const singleUnit = single && unitOf(single[2] ?? '');
  if (single && singleUnit) {
    const shift = single[1] === 'last' ? -1 : single[1] === 'next' ? 1 : 0;
    return span(singleUnit, shift, shift);
  }

  // Cube: the N whole units before the current one (`last 7 days` ends yesterday), or after it.
  const many = /^(last|next) (\d+) ([a-z]+?)s?$/.exec(phrase);
  const manyUnit = many && unitOf(many[3] ?? '');
  if (many && manyUnit) {
    const count = Number(many[2]);
    if (count < 1) throw new QueryError(`Can't parse date range: ${text}`);
    return many[1] === 'last' ? span(manyUnit, -count, -1) : span(manyUnit, 1, count);
  }

  const fromTo = /^from (.+) to (.+)$/.exec(phrase);
  if (fromTo) {
    const from =
      absolutePoint(fromTo[1] ?? '', zone, 'start') ?? relativePoint(fromTo[1] ?? '', zone, now, 'start');
    const to =
      absolutePoint(fromTo[2] ?? '', zone, 'end') ?? relativePoint(fromTo[2] ?? '', zone, now, 'end');
    if (from !== undefined && to !== undefined) return wholeUnits([from, to], phrase, zone);
  }

  // A single date or timestamp stands for itself (a date: the whole day).
  const start = absolutePoint(phrase, zone, 'start');
  const end = absolutePoint(phrase, zone, 'end');
  if (start !== undefined && end !== undefined) return [start, end];
  throw new QueryError(`Can't parse date range: ${text}`);
}

/**
 * Cube's reading of a `from … to …` phrase: its ends widened to whole days, or to whole hours,
 * minutes or seconds when the phrase names that unit (`from 7 days ago to now` is the seven days
 * before today and all of today; `from 2 hours ago to now`, whole hours).
 */
function wholeUnits([from, to]: Instants, phrase: string, zone: string): Instants {
  const unit =
    (['second', 'minute', 'hour'] as const).find((candidate) => phrase.includes(candidate)) ?? 'day';
  return [
    zonedTimeToUtc(startOf(utcToZoned(from, zone), unit), zone),
    endOf(utcToZoned(to, zone), unit, zone),
  ];
}

/** The wall-clock start of the unit holding `local`. */
export function startOf(local: LocalTime, unit: Unit): LocalTime {
  const result = { ...local, millisecond: 0 };
  if (unit === 'second') return result;
  result.second = 0;
  if (unit === 'minute') return result;
  result.minute = 0;
  if (unit === 'hour') return result;
  result.hour = 0;
  if (unit === 'day') return result;
  if (unit === 'week') {
    const weekday = (new Date(localToMs(result)).getUTCDay() + 6) % 7; // Monday 0
    return addUnits(result, 'day', -weekday);
  }
  result.day = 1;
  if (unit === 'month') return result;
  if (unit === 'quarter') return { ...result, month: Math.floor((result.month - 1) / 3) * 3 + 1 };
  return { ...result, month: 1 };
}

/** Calendar arithmetic on wall-clock times (months keep the day, clamped to the month's end). */
export function addUnits(local: LocalTime, unit: Unit, count: number): LocalTime {
  switch (unit) {
    case 'second':
    case 'minute':
    case 'hour':
      return msToLocal(computable(localToMs(local) + count * UNIT_MS[unit]));
    case 'day':
    case 'week':
      return msToLocal(computable(localToMs(local) + count * (unit === 'week' ? 7 : 1) * 86_400_000));
    default: {
      const months = count * (unit === 'year' ? 12 : unit === 'quarter' ? 3 : 1);
      const index = local.year * 12 + (local.month - 1) + months;
      const year = Math.floor(index / 12);
      // ±100,000 years keeps every later step inside what `Date` holds.
      if (!(Math.abs(year) <= 100_000)) throw new OutOfYears();
      const month = index - year * 12 + 1;
      const lastDay = msToLocal(localToMs({ ...local, year, month: month + 1, day: 0 })).day;
      return { ...local, year, month, day: Math.min(local.day, lastDay) };
    }
  }
}

/** The last instant (ms) of the unit starting at the wall-clock time `start`. */
function endOf(start: LocalTime, unit: Unit, zone: string): number {
  return zonedTimeToUtc(addUnits(startOf(start, unit), unit, 1), zone) - 1;
}
