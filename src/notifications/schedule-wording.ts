/** The English description of a schedule (`humanReadableSchedule`). */
import {
  type Cron,
  type CronField,
  type CronItem,
  DAY_NAMES,
  MONTH_NAMES,
  parseCron,
} from './cron-expression';
import { cronExpressionOf, type Schedule } from './schedule';

const hhmm = (hour: number, minute: number) =>
  `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;

function listing(words: string[], conjunction = 'and'): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} ${conjunction} ${words[words.length - 1]}`;
}

/** Consecutive values folded into ranges: [1,2,3,5] → "1 through 3 and 5". */
function compress(values: number[], name: (v: number) => string, conjunction = 'and'): string {
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
  return listing(runs, conjunction);
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
  // Both restricted, either day field may match; else both must (`*/2` still narrows the days).
  const narrowDays = dom.values.length < 31;
  const narrowWeekdays = dow.values.length < 7;
  if (dom.restricted && dow.restricted) parts.push(`${domText} or ${dowText}`);
  else if (narrowDays && narrowWeekdays) {
    const weekdays = compress(dow.values, (d) => DAY_NAMES[d] as string, 'or');
    parts.push(`${domText} ${dom.values.length === 1 ? 'if it falls' : 'that fall'} on ${weekdays}`);
  } else if (narrowDays) parts.push(domText);
  else if (narrowWeekdays) parts.push(dowText);
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
