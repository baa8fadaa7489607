/**
 * Standard 5-field cron expressions: parsing, and the next run times of a schedule in its time
 * zone (the MONTHLY last-day rule and the local-time rules of time-zone.ts included).
 */

import { wallClock } from '../core/time-zone';
import { cronExpressionOf, type Schedule } from './schedule';
import { DAY_MS, dayMapper } from './time-zone';

/** Far enough for the rarest expression that still fires (29 February, up to 8 years apart). */
const HORIZON_DAYS = 366 * 9;

export const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
export const MONTH_NAMES = [
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

export interface CronItem {
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

export interface CompiledSchedule {
  cron: Cron;
  timezone: string;
  /** MONTHLY: a day past the month's end runs on its last day. */
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
