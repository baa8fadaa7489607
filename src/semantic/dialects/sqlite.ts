import { isDecimalText } from '../../core/text';
import type { Granularity } from '../model/model.types';
import { offsetTransitions } from '../query/time-zone';
import { aliasedColumnOf, type Dialect, patternAround, type TextMatch, type ZoneContext } from './dialect';

/**
 * SQLite (D1, a Durable Object's storage). Times are ISO-8601 text, with or without an offset
 * (without: UTC). SQLite has no time zones, so a zone's UTC offsets over the query's span are
 * computed here and written into the statement as a balanced CASE (a binary search per row);
 * those literals come from `Intl` for a validated zone name, never from the caller. Lists are one
 * JSON parameter, and parameters are numbered so a repeated one binds once, because a statement
 * binds at most 100 parameters.
 */
const UTC_TEXT = '%Y-%m-%d %H:%M:%f';

export const sqlite: Dialect = {
  name: 'sqlite',
  // Numbered (`?1`): a value the SQL repeats (a filter copied into each fan-out subquery) is bound
  // once, and a statement binds at most 100.
  reusesParams: true,
  quote: (identifier) => `"${identifier.replace(/"/g, '""')}"`,
  placeholder: (position) => `?${position}`,

  instant: (expr) => `strftime('${UTC_TEXT}', ${expr})`,
  instantParam: (param) => param,
  instantValue: (iso) => iso.replace('T', ' ').replace(/Z$/, ''),
  // `col = col` is what SQLite reads as needing the column's row (`col IS NOT NULL` it does not):
  // a LEFT JOIN becomes an inner join the planner may start from the range's index. Only for a
  // cube's column: an expression would be computed twice more for nothing.
  requiresValue: (expr) => (aliasedColumnOf(expr) ? `${expr} = ${expr}` : undefined),
  // Each strftime below reads the value as stored (ISO text with or without an offset, or a
  // number) and works in UTC, so none needs it rewritten as UTC text first: in UTC the truncation
  // reads the value itself, one strftime per row instead of two.
  localTime(expr, zone, granularity) {
    const offset = offsetSql(zone);
    const local =
      offset === undefined
        ? expr
        : typeof offset === 'number'
          ? `(SELECT strftime('${UTC_TEXT}', t, '${offset} minutes') FROM (SELECT ${expr} AS t))`
          : `(SELECT strftime('${UTC_TEXT}', t, (${offset}) || ' minutes') FROM (SELECT t, CAST(strftime('%s', t) AS INTEGER) AS s FROM (SELECT ${expr} AS t)))`;
    return `(SELECT ${truncate('l', granularity)} FROM (SELECT ${local} AS l))`;
  },

  inList: (expr, param) => `(${expr}) IN (SELECT value FROM json_each(${param}))`,
  notInList: (expr, param) => `(${expr}) NOT IN (SELECT value FROM json_each(${param}))`,
  listValue: (values) => JSON.stringify(values),
  textForms(expr, value) {
    if (aliasedColumnOf(expr)) return [value];
    const number = numberOfText(value);
    return number === undefined ? [value] : [value, number];
  },
  textPattern: caseFoldingGlob,
  likeAny: (expr, param) => `EXISTS (SELECT 1 FROM json_each(${param}) WHERE (${expr}) GLOB value)`,
  same: (left, right) => `${left} IS ${right}`,
  numberParam: (param) => param,
  booleanValue: (value) => (value ? 1 : 0),
  asText: (expr) => `CAST(${expr} AS TEXT)`,
};

/**
 * The number `text` reads as, for comparing an expression that has no affinity; undefined for
 * text that is no decimal number, or an integer past 2^53 that a double would round to another.
 */
function numberOfText(text: string): number | undefined {
  if (!isDecimalText(text)) return undefined;
  const number = Number(text);
  if (!Number.isFinite(number) || (Number.isInteger(number) && !Number.isSafeInteger(number)))
    return undefined;
  return number;
}

/** The first character of a character's lower case, as glibc's `towlower` (PostgreSQL's ILIKE) reads it: `İ` is `i`. */
const lowerOf = (char: string): string => String.fromCodePoint(char.toLowerCase().codePointAt(0) as number);

/**
 * The characters whose lower case is a letter besides that letter and its upper case, by the
 * letter (`k` also for the Kelvin sign, `ß` for `ẞ`, `i` for `İ`, and the title-case letters).
 * Listed from a scan of every code point; a test scans them again in the runtime, so a newer
 * Unicode that adds one fails it.
 */
const OTHER_CASES = new Map(
  'i\u0130 k\u212a \u00e5\u212b \u01c6\u01c5 \u01c9\u01c8 \u01cc\u01cb \u01f3\u01f2 \u03b8\u03f4 \u03c9\u2126 \u00df\u1e9e \u1f80\u1f88 \u1f81\u1f89 \u1f82\u1f8a \u1f83\u1f8b \u1f84\u1f8c \u1f85\u1f8d \u1f86\u1f8e \u1f87\u1f8f \u1f90\u1f98 \u1f91\u1f99 \u1f92\u1f9a \u1f93\u1f9b \u1f94\u1f9c \u1f95\u1f9d \u1f96\u1f9e \u1f97\u1f9f \u1fa0\u1fa8 \u1fa1\u1fa9 \u1fa2\u1faa \u1fa3\u1fab \u1fa4\u1fac \u1fa5\u1fad \u1fa6\u1fae \u1fa7\u1faf \u1fb3\u1fbc \u1fc3\u1fcc \u1ff3\u1ffc'
    .split(' ')
    .map((cases) => {
      const [lower = '', ...others] = [...cases];
      return [lower, others];
    }),
);

/** Every character whose lower case is `char`'s (one character each): its class in a GLOB pattern. */
export function casesOf(char: string): string[] {
  const lower = lowerOf(char);
  const upper = lower.toUpperCase();
  const candidates = [
    char,
    lower,
    ...([...upper].length === 1 ? [upper] : []),
    ...(OTHER_CASES.get(lower) ?? []),
  ];
  return [...new Set(candidates.filter((candidate) => lowerOf(candidate) === lower))];
}

/**
 * A GLOB pattern that finds `value` case-insensitively, as PostgreSQL's ILIKE does: it compares
 * the lower cases of the text and of the value, character by character. SQLite's `lower()` and
 * LIKE fold ASCII letters only (`é` never finds `É`), and GLOB folds none, but it takes character
 * classes: each character becomes the class of those with its lower case (`é` → `[éÉ]`, `k` →
 * `[kKK]` with the Kelvin sign; `ı` stays `ı`, since `I` lowers to `i`), and GLOB's own wildcards
 * in `value` become classes that hold only themselves (`*` → `[*]`).
 */
function caseFoldingGlob(value: string, kind: TextMatch): string {
  let pattern = '';
  for (const char of value) {
    const cases = casesOf(char);
    if (cases.length > 1) pattern += `[${cases.join('')}]`;
    else if (char === '*' || char === '?' || char === '[') pattern += `[${char}]`;
    else pattern += char;
  }
  return patternAround(pattern, kind, '*');
}

/** Local time `l` (as stored, or `YYYY-MM-DD HH:MM:SS.SSS` once shifted to a zone) truncated, in Cube's `T` format. */
function truncate(l: string, granularity: Granularity | undefined): string {
  switch (granularity) {
    case undefined:
      return `strftime('%Y-%m-%dT%H:%M:%f', ${l})`;
    case 'second':
      return `strftime('%Y-%m-%dT%H:%M:%S.000', ${l})`;
    case 'minute':
      return `strftime('%Y-%m-%dT%H:%M:00.000', ${l})`;
    case 'hour':
      return `strftime('%Y-%m-%dT%H:00:00.000', ${l})`;
    case 'day':
      return `strftime('%Y-%m-%dT00:00:00.000', ${l})`;
    case 'week':
      // `weekday 0` moves forward to Sunday (or stays), six days back is that week's Monday.
      return `strftime('%Y-%m-%dT00:00:00.000', ${l}, 'weekday 0', '-6 days')`;
    case 'month':
      return `strftime('%Y-%m-01T00:00:00.000', ${l})`;
    case 'quarter':
      return `(strftime('%Y-', ${l}) || printf('%02d', (CAST(strftime('%m', ${l}) AS INTEGER) - 1) / 3 * 3 + 1) || '-01T00:00:00.000')`;
    case 'year':
      return `strftime('%Y-01-01T00:00:00.000', ${l})`;
  }
}

/**
 * The zone's offset in minutes for `s`, epoch seconds of a UTC time: nothing for UTC, a number for a zone
 * without changes over the span, else a balanced CASE over the span's transitions.
 */
function offsetSql(zone: ZoneContext): string | number | undefined {
  const { initial, transitions } = offsetTransitions(zone.zone, zone.span[0], zone.span[1]);
  if (transitions.length === 0) return initial === 0 ? undefined : initial;
  // Epoch seconds keep the literals short: the CASE is written once per converted column.
  const bounds = transitions.map((transition) => Math.floor(transition.at / 1000));
  const offsets = [initial, ...transitions.map((transition) => transition.offsetMinutes)];
  // offsets[i] holds from bounds[i - 1] (inclusive) to bounds[i] (exclusive).
  const search = (low: number, high: number): string => {
    if (low === high) return String(offsets[low]);
    const middle = Math.floor((low + high) / 2);
    return `CASE WHEN s<${bounds[middle]} THEN ${search(low, middle)} ELSE ${search(middle + 1, high)} END`;
  };
  return search(0, transitions.length);
}
