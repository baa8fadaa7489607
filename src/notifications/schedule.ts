/**
 * The schedule of a notification as stored: its type and the fields that type is built from
 * (Cube's schedule types), and the cron expression it stands for. Pure: no I/O, no clock.
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

/** The fields each schedule type is built from; the others do not apply to it. */
export const SCHEDULE_FIELDS: Record<ScheduleType, readonly ScheduleField[]> = {
  HOURLY: ['minute'],
  DAILY: ['hour', 'minute'],
  WEEKLY: ['dayOfWeek', 'hour', 'minute'],
  MONTHLY: ['dayOfMonth', 'hour', 'minute'],
  CUSTOM: ['customCron'],
};

/** The schedule fields of anything that carries them (a notification row, a stored record). */
export function scheduleOf(row: Schedule): Schedule {
  return {
    scheduleType: row.scheduleType,
    minute: row.minute,
    hour: row.hour,
    dayOfWeek: row.dayOfWeek,
    dayOfMonth: row.dayOfMonth,
    customCron: row.customCron,
    timezone: row.timezone,
  };
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
