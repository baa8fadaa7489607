import { describe, expect, it } from 'vitest';
import { canonicalTimeZone as resolveTimeZone } from '../../src/core/time-zone';
import {
  CronError,
  compileSchedule,
  nextRunAfter,
  nextRuns,
  parseCron,
} from '../../src/notifications/cron-expression';
import { cronExpressionOf, type Schedule } from '../../src/notifications/schedule';
import { describeSchedule } from '../../src/notifications/schedule-wording';
import { localIso } from '../../src/notifications/time-zone';

const base: Schedule = {
  scheduleType: 'DAILY',
  minute: null,
  hour: null,
  dayOfWeek: null,
  dayOfMonth: null,
  customCron: null,
  timezone: 'UTC',
};

const schedule = (s: Partial<Schedule>): Schedule => ({ ...base, ...s });
const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

/** The next `count` runs after `after`, as ISO strings. */
function runs(s: Partial<Schedule>, after: string, count: number): string[] {
  return nextRuns(compileSchedule(schedule(s)), at(after), count).map(iso);
}

describe('cron expressions of each schedule type', () => {
  it('builds the expression from the fields', () => {
    expect(cronExpressionOf(schedule({ scheduleType: 'HOURLY', minute: 15 }))).toBe('15 * * * *');
    expect(cronExpressionOf(schedule({ scheduleType: 'DAILY', hour: 9, minute: 5 }))).toBe('5 9 * * *');
    expect(cronExpressionOf(schedule({ scheduleType: 'WEEKLY', dayOfWeek: 1, hour: 9, minute: 0 }))).toBe(
      '0 9 * * 1',
    );
    expect(cronExpressionOf(schedule({ scheduleType: 'MONTHLY', dayOfMonth: 31, hour: 8, minute: 30 }))).toBe(
      '30 8 31 * *',
    );
    expect(cronExpressionOf(schedule({ scheduleType: 'CUSTOM', customCron: ' */15  9-17 * * 1-5 ' }))).toBe(
      '*/15 9-17 * * 1-5',
    );
  });

  it('parses lists, ranges, steps and names', () => {
    const cron = parseCron('0,30 */6 1-3 jan,JUL mon-fri');
    expect(cron.minute.values).toEqual([0, 30]);
    expect(cron.hour.values).toEqual([0, 6, 12, 18]);
    expect(cron.dayOfMonth.values).toEqual([1, 2, 3]);
    expect(cron.month.values).toEqual([1, 7]);
    expect(cron.dayOfWeek.values).toEqual([1, 2, 3, 4, 5]);
    expect(parseCron('5/20 * * * 7').minute.values).toEqual([5, 25, 45]);
    expect(parseCron('* * * * 7').dayOfWeek.values).toEqual([0]);
  });

  it.each([
    ['* * * *', /5 fields/],
    ['* * * * * *', /5 fields/],
    ['60 * * * *', /minute 60/],
    ['* 24 * * *', /hour 24/],
    ['* * 0 * *', /day of month 0/],
    ['* * * 13 *', /month 13/],
    ['* * * * 8', /day of week 8/],
    ['5-1 * * * *', /backwards/],
    ['*/0 * * * *', /at least 1/],
    ['L * * * *', /not a valid minute/],
    ['? * * * *', /not a valid minute field/],
    ['* * * foo *', /not a valid month/],
  ])('refuses %s', (expression, message) => {
    expect(() => parseCron(expression)).toThrowError(CronError);
    expect(() => parseCron(expression)).toThrowError(message);
  });
});

describe('next runs in UTC', () => {
  it('HOURLY runs every hour at its minute', () => {
    expect(runs({ scheduleType: 'HOURLY', minute: 15 }, '2026-05-01T10:15:00Z', 3)).toEqual([
      '2026-05-01T11:15:00.000Z',
      '2026-05-01T12:15:00.000Z',
      '2026-05-01T13:15:00.000Z',
    ]);
  });

  it('DAILY runs strictly after the given instant', () => {
    expect(runs({ hour: 9, minute: 0 }, '2026-05-01T08:59:59.999Z', 2)).toEqual([
      '2026-05-01T09:00:00.000Z',
      '2026-05-02T09:00:00.000Z',
    ]);
    expect(runs({ hour: 9, minute: 0 }, '2026-05-01T09:00:00.000Z', 1)).toEqual(['2026-05-02T09:00:00.000Z']);
  });

  it('WEEKLY runs on its weekday (Sunday is 0)', () => {
    // 2026-05-01 is a Friday.
    expect(
      runs({ scheduleType: 'WEEKLY', dayOfWeek: 0, hour: 7, minute: 45 }, '2026-05-01T00:00:00Z', 2),
    ).toEqual(['2026-05-03T07:45:00.000Z', '2026-05-10T07:45:00.000Z']);
  });

  it('MONTHLY 31 runs on the last day of February and April', () => {
    expect(
      runs({ scheduleType: 'MONTHLY', dayOfMonth: 31, hour: 9, minute: 0 }, '2026-01-01T00:00:00Z', 5),
    ).toEqual([
      '2026-01-31T09:00:00.000Z',
      '2026-02-28T09:00:00.000Z',
      '2026-03-31T09:00:00.000Z',
      '2026-04-30T09:00:00.000Z',
      '2026-05-31T09:00:00.000Z',
    ]);
    // A leap year's February has 29 days.
    expect(
      runs({ scheduleType: 'MONTHLY', dayOfMonth: 30, hour: 0, minute: 0 }, '2028-02-01T00:00:00Z', 1),
    ).toEqual(['2028-02-29T00:00:00.000Z']);
  });

  it('MONTHLY 31 in Europe/Berlin runs at 09:00 local on the last day of February and April', () => {
    const s = {
      scheduleType: 'MONTHLY' as const,
      dayOfMonth: 31,
      hour: 9,
      minute: 0,
      timezone: 'Europe/Berlin',
    };
    expect(runs(s, '2026-02-01T00:00:00Z', 3)).toEqual([
      '2026-02-28T08:00:00.000Z',
      '2026-03-31T07:00:00.000Z',
      '2026-04-30T07:00:00.000Z',
    ]);
  });

  it('CUSTOM follows cron: a day a month lacks is skipped, day fields OR together', () => {
    expect(runs({ scheduleType: 'CUSTOM', customCron: '0 0 31 * *' }, '2026-01-31T00:00:00Z', 2)).toEqual([
      '2026-03-31T00:00:00.000Z',
      '2026-05-31T00:00:00.000Z',
    ]);
    // Day 1 of the month or any Monday (2026-06-01 is a Monday, 2026-06-08 the next).
    expect(runs({ scheduleType: 'CUSTOM', customCron: '0 6 1 * 1' }, '2026-05-20T00:00:00Z', 3)).toEqual([
      '2026-05-25T06:00:00.000Z',
      '2026-06-01T06:00:00.000Z',
      '2026-06-08T06:00:00.000Z',
    ]);
    expect(
      runs({ scheduleType: 'CUSTOM', customCron: '*/20 9-10 * * 1-5' }, '2026-05-01T10:30:00Z', 3),
    ).toEqual(['2026-05-01T10:40:00.000Z', '2026-05-04T09:00:00.000Z', '2026-05-04T09:20:00.000Z']);
  });

  it('a CUSTOM expression that never fires has no next run', () => {
    const c = compileSchedule(schedule({ scheduleType: 'CUSTOM', customCron: '0 0 30 2 *' }));
    expect(nextRunAfter(c, at('2026-01-01T00:00:00Z'))).toBeNull();
    // 29 February is found even eight years out (2100 is not a leap year).
    const leap = compileSchedule(schedule({ scheduleType: 'CUSTOM', customCron: '0 0 29 2 *' }));
    expect(iso(nextRunAfter(leap, at('2096-03-01T00:00:00Z')) as number)).toBe('2104-02-29T00:00:00.000Z');
  });
});

describe('local time rules around daylight-saving changes', () => {
  const berlin = { timezone: 'Europe/Berlin' };
  const newYork = { timezone: 'America/New_York' };

  it('Europe/Berlin spring forward: 02:30 does not exist and runs at 03:00 CEST', () => {
    expect(runs({ ...berlin, hour: 2, minute: 30 }, '2026-03-27T12:00:00Z', 3)).toEqual([
      '2026-03-28T01:30:00.000Z', // 02:30 CET
      '2026-03-29T01:00:00.000Z', // 03:00 CEST, the first minute after the gap
      '2026-03-30T00:30:00.000Z', // 02:30 CEST
    ]);
  });

  it('Europe/Berlin fall back: 02:30 happens twice and runs once, at the first', () => {
    expect(runs({ ...berlin, hour: 2, minute: 30 }, '2026-10-23T12:00:00Z', 3)).toEqual([
      '2026-10-24T00:30:00.000Z', // 02:30 CEST
      '2026-10-25T00:30:00.000Z', // 02:30 CEST, not 02:30 CET an hour later
      '2026-10-26T01:30:00.000Z', // 02:30 CET
    ]);
  });

  it('America/New_York spring forward: 02:30 runs at 03:00 EDT', () => {
    expect(runs({ ...newYork, hour: 2, minute: 30 }, '2026-03-07T00:00:00Z', 3)).toEqual([
      '2026-03-07T07:30:00.000Z',
      '2026-03-08T07:00:00.000Z',
      '2026-03-09T06:30:00.000Z',
    ]);
  });

  it('America/New_York fall back: 01:30 runs once, at 01:30 EDT', () => {
    expect(runs({ ...newYork, hour: 1, minute: 30 }, '2026-10-31T00:00:00Z', 3)).toEqual([
      '2026-10-31T05:30:00.000Z',
      '2026-11-01T05:30:00.000Z',
      '2026-11-02T06:30:00.000Z',
    ]);
  });

  it('times away from the change keep their local hour on both sides', () => {
    expect(runs({ ...newYork, hour: 9, minute: 0 }, '2026-03-07T00:00:00Z', 3)).toEqual([
      '2026-03-07T14:00:00.000Z',
      '2026-03-08T13:00:00.000Z',
      '2026-03-09T13:00:00.000Z',
    ]);
  });

  it('HOURLY across the New York fall-back hour skips the repeated 01:30', () => {
    expect(runs({ ...newYork, scheduleType: 'HOURLY', minute: 30 }, '2026-11-01T04:00:00Z', 3)).toEqual([
      '2026-11-01T04:30:00.000Z', // 00:30 EDT
      '2026-11-01T05:30:00.000Z', // 01:30 EDT
      '2026-11-01T07:30:00.000Z', // 02:30 EST (01:30 EST is the repeat)
    ]);
  });

  it('HOURLY across the Berlin gap runs at 03:00 for 02:30, then resumes', () => {
    expect(runs({ ...berlin, scheduleType: 'HOURLY', minute: 30 }, '2026-03-29T00:00:00Z', 3)).toEqual([
      '2026-03-29T00:30:00.000Z', // 01:30 CET
      '2026-03-29T01:00:00.000Z', // 03:00 CEST stands in for 02:30
      '2026-03-29T01:30:00.000Z', // 03:30 CEST
    ]);
  });

  it('several times inside one gap run once, at the first minute after it', () => {
    expect(
      runs({ ...berlin, scheduleType: 'CUSTOM', customCron: '*/15 2 * * *' }, '2026-03-28T23:00:00Z', 2),
    ).toEqual(['2026-03-29T01:00:00.000Z', '2026-03-30T00:00:00.000Z']);
  });

  it('a next run computed from inside the repeated hour does not fire the repeat', () => {
    // 05:45Z is 01:45 EDT; the 06:30Z reading (01:30 EST) is the repeat and must not run.
    const c = compileSchedule(schedule({ ...newYork, hour: 1, minute: 30 }));
    expect(iso(nextRunAfter(c, at('2026-11-01T06:10:00Z')) as number)).toBe('2026-11-02T06:30:00.000Z');
  });
});

describe('time zones and local times', () => {
  it('accepts IANA names and canonicalizes their case; refuses others', () => {
    expect(resolveTimeZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(resolveTimeZone('UTC')).toBe('UTC');
    expect(resolveTimeZone('america/new_york')).toBe('America/New_York');
    // The name sent, not the older link ICU resolves it to (Asia/Calcutta, Europe/Kiev).
    expect(resolveTimeZone('Asia/Kolkata')).toBe('Asia/Kolkata');
    expect(resolveTimeZone('Europe/Kyiv')).toBe('Europe/Kyiv');
    expect(resolveTimeZone('Asia/Calcutta')).toBe('Asia/Calcutta');
    expect(resolveTimeZone('Mars/Olympus_Mons')).toBeNull();
    expect(resolveTimeZone('+02:00')).toBeNull();
    expect(resolveTimeZone('')).toBeNull();
  });

  it('renders an instant in local time with its offset', () => {
    expect(localIso(at('2026-03-29T01:00:00Z'), 'Europe/Berlin')).toBe('2026-03-29T03:00:00+02:00');
    expect(localIso(at('2026-11-01T06:30:00Z'), 'America/New_York')).toBe('2026-11-01T01:30:00-05:00');
    expect(localIso(at('2026-05-01T12:00:00Z'), 'Asia/Kolkata')).toBe('2026-05-01T17:30:00+05:30');
    expect(localIso(at('2026-05-01T12:00:00Z'), 'UTC')).toBe('2026-05-01T12:00:00+00:00');
  });
});

describe('humanReadableSchedule', () => {
  it.each([
    [{ scheduleType: 'HOURLY', minute: 0 }, 'Every hour, on the hour (UTC)'],
    [{ scheduleType: 'HOURLY', minute: 15 }, 'Every hour at 15 minutes past the hour (UTC)'],
    [
      { scheduleType: 'DAILY', hour: 9, minute: 5, timezone: 'Europe/Berlin' },
      'Every day at 09:05 (Europe/Berlin)',
    ],
    [{ scheduleType: 'WEEKLY', dayOfWeek: 1, hour: 17, minute: 0 }, 'Every Monday at 17:00 (UTC)'],
    [
      { scheduleType: 'MONTHLY', dayOfMonth: 15, hour: 8, minute: 30 },
      'On day 15 of every month at 08:30 (UTC)',
    ],
    [
      { scheduleType: 'MONTHLY', dayOfMonth: 31, hour: 8, minute: 30 },
      'On day 31 of every month at 08:30, or on the last day of shorter months (UTC)',
    ],
    [
      { scheduleType: 'CUSTOM', customCron: '*/15 9-17 * * 1-5', timezone: 'America/New_York' },
      'Every 15 minutes, between 09:00 and 17:59, on Monday through Friday (America/New_York)',
    ],
    [{ scheduleType: 'CUSTOM', customCron: '0 9,17 * * *' }, 'At 09:00 and 17:00, every day (UTC)'],
    [
      { scheduleType: 'CUSTOM', customCron: '30 8 1 */3 *' },
      'At 08:30, on day 1 of the month, every 3 months (UTC)',
    ],
    [
      { scheduleType: 'CUSTOM', customCron: '0 6 1 * 1' },
      'At 06:00, on day 1 of the month or on Monday (UTC)',
    ],
    // A day field starting with `*` is not restricted, so both must match, and says so.
    [
      { scheduleType: 'CUSTOM', customCron: '0 9 */2 * 1' },
      'At 09:00, every 2 days of the month that fall on Monday (UTC)',
    ],
    [
      { scheduleType: 'CUSTOM', customCron: '0 9 1-15 * */2' },
      'At 09:00, on days 1 through 15 of the month that fall on Sunday, Tuesday, Thursday or Saturday (UTC)',
    ],
    [
      { scheduleType: 'CUSTOM', customCron: '0 9 13 * */5' },
      'At 09:00, on day 13 of the month if it falls on Sunday or Friday (UTC)',
    ],
    [{ scheduleType: 'CUSTOM', customCron: '* * * * *' }, 'Every minute, every day (UTC)'],
    [
      { scheduleType: 'CUSTOM', customCron: '0 */2 * jan,jul 0' },
      'Every 2 hours, on the hour, on Sunday, in January and July (UTC)',
    ],
  ])('%j reads "%s"', (s, text) => {
    expect(describeSchedule(schedule(s as Partial<Schedule>))).toBe(text);
  });
});
