/**
 * Schedules of notifications: the cron expression of each schedule type, the next run times in
 * an IANA time zone under the local-time rules of contract §7, and the English description.
 * Pure: no I/O, no clock. Times are epoch milliseconds (UTC) unless named "local".
 */

export const SCHEDULE_TYPES = ['HOURLY', 'DAILY', 'WEEKLY', 'MONTHLY', 'CUSTOM'] as const;
export type ScheduleType = (typeof SCHEDULE_TYPES)[number];

export interface Schedule {
  scheduleType: ScheduleType;
  minute: number | null;
  hour: number | null;
  dayOfWeek: number | null;
  dayOfMonth: number | null;
  customCron: string | null;
  timezone: string;
}

export type ScheduleField = 'minute' | 'hour' | 'dayOfWeek' | 'dayOfMonth' | 'customCron';

/** The fields each schedule type is built from (contract §7); the others do not apply to it. */
export const SCHEDULE_FIELDS: Record<ScheduleType, readonly ScheduleField[]> = {
  HOURLY: ['minute'],
  DAILY: ['hour', 'minute'],
  WEEKLY: ['dayOfWeek', 'hour', 'minute'],
  MONTHLY: ['dayOfMonth', 'hour', 'minute'],
  CUSTOM: ['customCron'],
};

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
/** Far enough for the rarest expression that still fires (29 February, up to 8 years apart). */
const HORIZON_DAYS = 366 * 9;

export const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

// ---- Time zones ----

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/**
 * The canonical IANA name of `name`, or null when it is not one. UTC offsets such as "+02:00"
 * (which newer Intl versions accept) are refused: they have no daylight-saving rules.
 */
export function resolveTimeZone(name: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/** The wall-clock reading at `instant` in `timeZone`, as if that reading were UTC (ms). */
function wallClock(instant: number, timeZone: string): number {
  const p: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(instant)) {
    if (part.type !== 'literal') p[part.type] = Number(part.value);
  }
  return Date.UTC(p.year as number, (p.month as number) - 1, p.day, p.hour, p.minute, p.second);
}

/** The zone's offset from UTC at `instant`, in ms (positive east of Greenwich). */
export function offsetAt(instant: number, timeZone: string): number {
  const seconds = instant - (((instant % 1000) + 1000) % 1000);
  return wallClock(seconds, timeZone) - seconds;
}

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
 * the rules of contract §7: a time skipped by the clocks going forward runs at the first minute
 * after the gap; a time that happens twice runs at its first occurrence.
 */
function dayMapper(localMidnight: number, timeZone: string): (minuteOfDay: number) => number {
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

// ---- Cron expressions ----

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: string[];
}

const FIELD_SPECS: FieldSpec[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: MONTH_NAMES },
  { name: 'day of week', min: 0, max: 7, names: DAY_NAMES },
];

interface CronItem {
  start: number;
  end: number;
  step: number;
  /** `*` or `*\/n`. */
  all: boolean;
}

export interface CronField {
  values: number[];
  items: CronItem[];
  /** False when the field starts with `*`: cron then ANDs day of month with day of week. */
  restricted: boolean;
}

export interface Cron {
  minute: CronField;
  hour: CronField;
  dayOfMonth: CronField;
  month: CronField;
  dayOfWeek: CronField;
}

export class CronError extends Error {}

function parseValue(token: string, spec: FieldSpec): number {
  let value: number;
  if (/^\d{1,2}$/.test(token)) value = Number(token);
  else {
    const index = spec.names?.findIndex((n) => n.slice(0, 3).toLowerCase() === token.toLowerCase()) ?? -1;
    if (index < 0) throw new CronError(`"${token}" is not a valid ${spec.name}`);
    value = spec.names === MONTH_NAMES ? index + 1 : index;
  }
  if (value < spec.min || value > spec.max) {
    throw new CronError(`${spec.name} ${value} is outside ${spec.min}–${spec.max}`);
  }
  return value;
}

function parseField(text: string, spec: FieldSpec): CronField {
  const items: CronItem[] = [];
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^(\*|([A-Za-z0-9]+)(?:-([A-Za-z0-9]+))?)(?:\/(\d{1,2}))?$/.exec(part);
    if (!m) throw new CronError(`"${part}" is not a valid ${spec.name} field`);
    const step = m[4] === undefined ? 1 : Number(m[4]);
    if (step < 1) throw new CronError(`the step of the ${spec.name} field must be at least 1`);
    const all = m[1] === '*';
    const start = all ? spec.min : parseValue(m[2] as string, spec);
    let end = start;
    if (all) end = spec.max;
    else if (m[3] !== undefined) end = parseValue(m[3], spec);
    // "5/15" means from 5 to the end of the range, as in Vixie cron.
    else if (m[4] !== undefined) end = spec.max;
    if (end < start) throw new CronError(`the ${spec.name} range ${m[1]} goes backwards`);
    items.push({ start, end, step, all });
    // Day of week 7 is Sunday, as 0 is.
    for (let v = start; v <= end; v += step) values.add(spec.name === 'day of week' && v === 7 ? 0 : v);
  }
  return { values: [...values].sort((a, b) => a - b), items, restricted: !text.startsWith('*') };
}

/** Parses a 5-field cron expression (minute hour day-of-month month day-of-week). */
export function parseCron(expression: string): Cron {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5)
    throw new CronError('a cron expression has 5 fields: minute hour day month weekday');
  const [minute, hour, dayOfMonth, month, dayOfWeek] = parts.map((p, i) =>
    parseField(p, FIELD_SPECS[i] as FieldSpec),
  ) as [CronField, CronField, CronField, CronField, CronField];
  return { minute, hour, dayOfMonth, month, dayOfWeek };
}

/** The cron expression a schedule stands for (CUSTOM: the given one, whitespace normalized). */
export function cronExpressionOf(s: Schedule): string {
  switch (s.scheduleType) {
    case 'HOURLY':
      return `${s.minute} * * * *`;
    case 'DAILY':
      return `${s.minute} ${s.hour} * * *`;
    case 'WEEKLY':
      return `${s.minute} ${s.hour} * * ${s.dayOfWeek}`;
    case 'MONTHLY':
      return `${s.minute} ${s.hour} ${s.dayOfMonth} * *`;
    case 'CUSTOM':
      return (s.customCron ?? '').trim().split(/\s+/).join(' ');
  }
}

// ---- Next runs ----

export interface CompiledSchedule {
  cron: Cron;
  timezone: string;
  /** MONTHLY: a day past the month's end runs on its last day (contract §7). */
  clampDayOfMonth: number | null;
  /** Matching local times of a matching day, minutes since midnight, ascending. */
  times: number[];
}

export function compileSchedule(s: Schedule): CompiledSchedule {
  const cron = parseCron(cronExpressionOf(s));
  const times: number[] = [];
  for (const h of cron.hour.values) for (const m of cron.minute.values) times.push(h * 60 + m);
  return {
    cron,
    timezone: s.timezone,
    clampDayOfMonth: s.scheduleType === 'MONTHLY' ? s.dayOfMonth : null,
    times,
  };
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function dayMatches(c: CompiledSchedule, day: Date): boolean {
  const { cron } = c;
  const year = day.getUTCFullYear();
  const month = day.getUTCMonth() + 1;
  const date = day.getUTCDate();
  if (!cron.month.values.includes(month)) return false;
  const domOk =
    c.clampDayOfMonth !== null
      ? date === Math.min(c.clampDayOfMonth, daysInMonth(year, month))
      : cron.dayOfMonth.values.includes(date);
  const dowOk = cron.dayOfWeek.values.includes(day.getUTCDay());
  // Vixie cron: when both day fields are restricted, either one matching is enough.
  if (cron.dayOfMonth.restricted && cron.dayOfWeek.restricted) return domOk || dowOk;
  return domOk && dowOk;
}

/** The first run strictly after `after`, or null when the schedule never fires. */
export function nextRunAfter(c: CompiledSchedule, after: number): number | null {
  // Start a day early: an instant in a repeated hour reads as a local time that already passed.
  const startWall = wallClock(after - DAY_MS, c.timezone);
  let midnight = startWall - (((startWall % DAY_MS) + DAY_MS) % DAY_MS);
  for (let i = 0; i < HORIZON_DAYS; i++, midnight += DAY_MS) {
    if (!dayMatches(c, new Date(midnight))) continue;
    const toInstant = dayMapper(midnight, c.timezone);
    for (const minuteOfDay of c.times) {
      const instant = toInstant(minuteOfDay);
      if (instant > after) return instant;
    }
  }
  return null;
}

/** The next `count` runs strictly after `after` (fewer if the schedule stops firing). */
export function nextRuns(c: CompiledSchedule, after: number, count: number): number[] {
  const runs: number[] = [];
  let from = after;
  while (runs.length < count) {
    const next = nextRunAfter(c, from);
    if (next === null) break;
    runs.push(next);
    from = next;
  }
  return runs;
}

// ---- English ----

const hhmm = (hour: number, minute: number) =>
  `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;

function listing(words: string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** Consecutive values folded into ranges: [1,2,3,5] → "1 through 3 and 5". */
function compress(values: number[], name: (v: number) => string): string {
  const runs: string[] = [];
  for (let i = 0; i < values.length; ) {
    let j = i;
    while (j + 1 < values.length && (values[j + 1] as number) === (values[j] as number) + 1) j++;
    const a = values[i] as number;
    const b = values[j] as number;
    if (j - i >= 2) runs.push(`${name(a)} through ${name(b)}`);
    else for (let k = i; k <= j; k++) runs.push(name(values[k] as number));
    i = j + 1;
  }
  return listing(runs);
}

function singleStep(field: CronField): CronItem | null {
  const item = field.items[0];
  return field.items.length === 1 && item && item.step > 1 && item.all ? item : null;
}

function describeTime(cron: Cron): string {
  const { minute, hour } = cron;
  const minutes = minute.values;
  const hours = hour.values;
  if (minutes.length * hours.length <= 4 && hours.length < 24) {
    const times = hours.flatMap((h) => minutes.map((m) => hhmm(h, m)));
    return `At ${listing(times)}`;
  }
  const minuteStep = singleStep(minute);
  const hourStep = singleStep(hour);
  let text: string;
  if (minutes.length === 60) text = 'Every minute';
  else if (minuteStep) text = `Every ${minuteStep.step} minutes`;
  else {
    const lead = hourStep ? `Every ${hourStep.step} hours` : 'Every hour';
    const past =
      minutes.length === 1 && minutes[0] === 0
        ? ', on the hour'
        : ` at ${compress(minutes, String)} minutes past the hour`;
    text = `${lead}${past}`;
    if (hourStep) return text;
  }
  if (hours.length === 24) return text;
  if (hourStep) return `${text}, every ${hourStep.step} hours`;
  const item = hour.items[0];
  if (hour.items.length === 1 && item && item.step === 1 && item.end > item.start) {
    return `${text}, between ${hhmm(item.start, 0)} and ${hhmm(item.end, 59)}`;
  }
  return `${text}, during the hours ${compress(hours, (h) => hhmm(h, 0))}`;
}

function describeDays(cron: Cron): string {
  const parts: string[] = [];
  const dom = cron.dayOfMonth;
  const dow = cron.dayOfWeek;
  const domText = (() => {
    const step = singleStep(dom);
    if (step) return `every ${step.step} days of the month`;
    if (dom.values.length === 1) return `on day ${dom.values[0]} of the month`;
    return `on days ${compress(dom.values, String)} of the month`;
  })();
  const dowText = `on ${compress(dow.values, (d) => DAY_NAMES[d] as string)}`;
  if (dom.restricted && dow.restricted) parts.push(`${domText} or ${dowText}`);
  else if (dom.values.length < 31) parts.push(domText);
  else if (dow.values.length < 7) parts.push(dowText);
  else parts.push('every day');
  if (cron.month.values.length < 12) {
    const step = singleStep(cron.month);
    parts.push(
      step
        ? `every ${step.step} months`
        : `in ${compress(cron.month.values, (m) => MONTH_NAMES[m - 1] as string)}`,
    );
  }
  return parts.join(', ');
}

/** The schedule in English, ending with its time zone: "Every Monday at 09:00 (Europe/Berlin)". */
export function describeSchedule(s: Schedule): string {
  const zone = ` (${s.timezone})`;
  const at = hhmm(s.hour ?? 0, s.minute ?? 0);
  switch (s.scheduleType) {
    case 'HOURLY':
      return s.minute === 0
        ? `Every hour, on the hour${zone}`
        : `Every hour at ${s.minute} minutes past the hour${zone}`;
    case 'DAILY':
      return `Every day at ${at}${zone}`;
    case 'WEEKLY':
      return `Every ${DAY_NAMES[s.dayOfWeek ?? 0]} at ${at}${zone}`;
    case 'MONTHLY': {
      const clamp = (s.dayOfMonth ?? 1) > 28 ? ', or on the last day of shorter months' : '';
      return `On day ${s.dayOfMonth} of every month at ${at}${clamp}${zone}`;
    }
    case 'CUSTOM': {
      const cron = parseCron(cronExpressionOf(s));
      return `${describeTime(cron)}, ${describeDays(cron)}${zone}`;
    }
  }
}
