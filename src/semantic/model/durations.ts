const UNIT_SECONDS: Record<string, number> = {
  second: 1,
  minute: 60,
  hour: 3600,
  day: 86_400,
  week: 604_800,
};
const SHORT_UNITS: Record<string, string> = { s: 'second', m: 'minute', h: 'hour', d: 'day', w: 'week' };

/**
 * Seconds in a refresh interval such as `1 hour`, `30 seconds` or `10m`; null when the text is
 * not one (Cube's cron expressions are not supported).
 */
export function parseDuration(text: string): number | null {
  const match = /^(\d+)\s*([a-z]+)$/.exec(text.trim().toLowerCase());
  if (!match) return null;
  const count = Number(match[1]);
  const word = match[2] ?? '';
  const unit = SHORT_UNITS[word] ?? word.replace(/s$/, '');
  const seconds = UNIT_SECONDS[unit];
  if (seconds === undefined || count <= 0 || !Number.isSafeInteger(count * seconds)) return null;
  return count * seconds;
}
