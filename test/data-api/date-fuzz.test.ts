import { beforeAll, describe, expect, it } from 'vitest';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { load, shopOnBothStores } from './fixtures';

/**
 * The relative-range and date parsers, fuzzed through `/cubejs-api/v1/load`: counts at and past
 * every boundary (the years 0001 and 9999, what `Date` holds, 2^31, 2^53, hundreds of digits),
 * every unit spelled right and wrong, odd spacing, absolute dates and timestamps at the edges of
 * the calendar, and every time zone the runtime knows. Each answer is a 200, or a 400 whose
 * message names the value it refuses: never a 5xx.
 */

type Json = any;

const MANAGER = { cubeCloud: { groups: ['managers'] } };

let acme: SeededAccount;
let storeToken: string;
let pgToken: string;

beforeAll(async () => {
  acme = await seedAccount();
  ({ storeToken, pgToken } = await shopOnBothStores(acme, MANAGER));
});

/** The fields of a query the fuzzed values go to, as a validation error's path names them. */
const FIELD_PATH = /^query\.(timeDimensions\.\d+\.dateRange|timezone|filters\.\d+\.values)(\.\d+)?$/;

/** Whether an error message names `value` (as sent, or as JSON). */
function names(message: string, value: Json): boolean {
  if (typeof value === 'string' && message.includes(value)) return true;
  return message.includes(JSON.stringify(value));
}

/**
 * Sends each query and holds every answer to "200, or a 400 naming the field": `fields` picks the
 * values out of the query one of which a 400 must name. Answers the statuses seen.
 */
async function expectAnswered(
  token: string,
  queries: Json[],
  fields: (query: Json) => Json[],
): Promise<Record<number, number>> {
  const seen: Record<number, number> = {};
  // A few at a time: the answers are independent, and the Worker serves them concurrently.
  const answers: { query: Json; res: Awaited<ReturnType<typeof load>> }[] = [];
  for (let at = 0; at < queries.length; at += 8) {
    const chunk = queries.slice(at, at + 8);
    answers.push(
      ...(await Promise.all(chunk.map(async (query) => ({ query, res: await load(token, query) })))),
    );
  }
  for (const { query, res } of answers) {
    seen[res.status] = (seen[res.status] ?? 0) + 1;
    const what = `${JSON.stringify(query)} → ${res.status} ${JSON.stringify(res.body)}`;
    expect([200, 400], what).toContain(res.status);
    if (res.status === 400) {
      expect(typeof res.body.error, what).toBe('string');
      // The semantic layer names the value; the request's schema (a string too long) its path.
      const paths = ((res.body.details ?? []) as { path: string }[]).map((detail) => detail.path);
      expect(
        fields(query).some((value) => names(res.body.error, value)) ||
          (res.body.code === 'VALIDATION_FAILED' && paths.some((path) => FIELD_PATH.test(path))),
        what,
      ).toBe(true);
    }
  }
  return seen;
}

const UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year'] as const;
const PER_YEAR: Record<(typeof UNITS)[number], number> = {
  second: 31_556_952,
  minute: 525_949.2,
  hour: 8_765.82,
  day: 365.2425,
  week: 52.1775,
  month: 12,
  quarter: 4,
  year: 1,
};

/** Counts around each boundary a count of `unit` can cross, as decimal text. */
function countsOf(unit: (typeof UNITS)[number]): string[] {
  const year = new Date().getUTCFullYear();
  const counts = new Set<string>(['0', '1', '007']);
  // The years 0001 and 9999, and what `Date` holds (±275,760 years).
  for (const years of [year - 1, 9999 - year, 275_760]) {
    const base = Math.floor(years * PER_YEAR[unit]);
    for (const delta of [0, 2]) counts.add(String(base + delta));
  }
  counts.add(String(2 ** 31));
  counts.add('9007199254740993'); // 2^53 + 1: not a double
  counts.add('1000000000000000000000'); // 1e21: String(Number) turns exponential
  counts.add('9'.repeat(40)); // past any Date, and within the 64 characters a range may have
  return [...counts];
}

const rangeQuery = (dateRange: Json, timezone?: Json): Json => ({
  measures: ['orders.count'],
  timeDimensions: [{ dimension: 'orders.created_at', granularity: 'year', dateRange }],
  ...(timezone === undefined ? {} : { timezone }),
});
const rangeOf = (query: Json) => [query.timeDimensions[0].dateRange];
/** A 400 of a range query names its range or, when the zone is the fault, the zone. */
const rangeOrZone = (query: Json) => [query.timeDimensions[0].dateRange, String(query.timezone)];

describe('relative date ranges', () => {
  for (const unit of UNITS) {
    it(`answers 200 or a 400 naming the range for counts of ${unit}s at and past every boundary`, async () => {
      const forms = [
        (n: string) => `last ${n} ${unit}s`,
        (n: string) => `next ${n} ${unit}`,
        (n: string) => `from ${n} ${unit}s ago to now`,
        (n: string) => `from now to ${n} ${unit}s from now`,
      ];
      // Each count in two of the four forms, turn by turn: every form meets every boundary.
      const phrases = countsOf(unit).flatMap((n, i) => [
        (forms[i % 4] as (n: string) => string)(n),
        (forms[(i + 1) % 4] as (n: string) => string)(n),
      ]);
      const seen = await expectAnswered(
        storeToken,
        phrases.map((phrase) => rangeQuery(phrase)),
        rangeOf,
      );
      // The boundaries are crossed: some counts answer, some are refused.
      expect(seen[200]).toBeGreaterThan(0);
      expect(seen[400]).toBeGreaterThan(0);
    }, 120_000);
  }

  it('names the range it refuses: last 999999999 years is a 400, not a 500', async () => {
    const res = await load(storeToken, rangeQuery('last 999999999 years'));
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toBe('Date range "last 999999999 years" is outside the years 0001 to 9999');
  });

  it('answers odd units, spelling and spacing with 200 or a 400 naming them', async () => {
    const phrases = [
      'last 7 DAYS',
      'Last 7 Days',
      '  last   7\tdays  ',
      'last\n7 days',
      'last7days',
      'last 7days',
      'last 7 dayss',
      'last 7 fortnights',
      'last 7 milliseconds',
      'last 7 ms',
      'last 7 decades',
      'last -7 days',
      'last +7 days',
      'last 7.5 days',
      'last 1e3 days',
      'last 0x10 days',
      'last ٧ days',
      'last 7 days ago',
      'last',
      'last days',
      'this',
      'this decade',
      'next week',
      'this quarter',
      'from  3 days ago  to  now',
      'from 3 days ago to',
      'from to now',
      'from now to now',
      'from tomorrow to yesterday',
      'from 10000 years ago to now',
      'from 9999-12-31 to 10000 days from now',
      'from 0001-01-01 to now',
      'today',
      'TODAY',
      'yesterday ',
      '',
      ' ',
      '\u0000',
      'x'.repeat(5_000),
      `last ${'7 '.repeat(500)}days`,
    ];
    await expectAnswered(
      storeToken,
      phrases.map((phrase) => rangeQuery(phrase)),
      rangeOf,
    );
  }, 60_000);
});

describe('absolute dates and timestamps', () => {
  const edges = [
    '0000-01-01',
    '0001-01-01',
    '0001-01-01T00:00:00Z',
    '0001-01-01T00:00:00+14:00',
    '9999-12-31',
    '9999-12-31T23:59:59.999Z',
    '9999-12-31T23:59:59.999-12:00',
    '10000-01-01',
    '2024-02-29',
    '2023-02-29',
    '2024-02-30',
    '2024-13-01',
    '2024-00-10',
    '2024-01-00',
    '2024-01-01T24:00:00',
    '2024-01-01T23:59:60',
    '2024-01-01T23:60:00',
    '2024-01-01T12:00:00.123456789',
    '2024-01-01T12:00:00+99:99',
    '2024-01-01T12:00:00+2400',
    '2024-01-01 12:00',
    '2024-1-1',
    '20240101',
    '+002024-01-01',
    '-000001-01-01',
    'now',
    '3 days ago',
    '99999999999 days ago',
    '9'.repeat(400),
  ];

  it('answers a [from, to] range of any two edges with 200 or a 400 naming it', async () => {
    const queries = edges.flatMap((from) =>
      ['0001-01-01', '9999-12-31', 'now', from].map((to) => rangeQuery([from, to])),
    );
    await expectAnswered(storeToken, queries, rangeOf);
  }, 120_000);

  it('answers every date filter operator on every edge with 200 or a 400 naming the value', async () => {
    const operators = ['beforeDate', 'beforeOrOnDate', 'afterDate', 'afterOrOnDate', 'gt', 'lte', 'equals'];
    const queries = operators.flatMap((operator) =>
      edges.map((value) => ({
        measures: ['orders.count'],
        filters: [{ member: 'orders.created_at', operator, values: [value] }],
      })),
    );
    const filterValue = (query: Json) => [query.filters[0].values[0]];
    await expectAnswered(storeToken, queries, filterValue);
    const ranges = edges.map((value) => ({
      measures: ['orders.count'],
      filters: [{ member: 'orders.created_at', operator: 'notInDateRange', values: [value, '9999-12-31'] }],
    }));
    await expectAnswered(storeToken, ranges, (query) => [query.filters[0].values]);
  }, 120_000);

  it('binds the first and last representable instants in PostgreSQL too', async () => {
    const queries = [
      rangeQuery(['0001-01-01', '9999-12-31']),
      rangeQuery(['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z']),
      rangeQuery(['0001-01-01', '9999-12-31'], 'Pacific/Kiritimati'),
      rangeQuery(['0001-01-01', '9999-12-31'], 'Pacific/Pago_Pago'),
      rangeQuery(`next ${9999 - new Date().getUTCFullYear()} years`),
      rangeQuery('last 999999999 years'),
      rangeQuery(`from ${'9'.repeat(30)} seconds ago to now`),
    ];
    const seen = await expectAnswered(pgToken, queries, rangeOrZone);
    expect(seen[200]).toBeGreaterThan(0);
  }, 60_000);
});

describe('time zones', () => {
  it('answers ranges at both ends of the calendar in every time zone the runtime knows', async () => {
    const zones = Intl.supportedValuesOf('timeZone');
    expect(zones.length).toBeGreaterThan(300);
    // Turn by turn: the whole calendar, its last instant, and a relative range across now.
    const ranges = [
      ['0001-01-01', '9999-12-31'],
      ['9999-12-31', '9999-12-31'],
      'from 7 days ago to 7 days from now',
    ];
    const queries = zones.map((zone, i) => rangeQuery(ranges[i % ranges.length], zone));
    const seen = await expectAnswered(storeToken, queries, rangeOrZone);
    expect(seen[200]).toBeGreaterThan(zones.length / 2);
  }, 300_000);

  it('answers unknown and odd time zones with a 400 naming them', async () => {
    const odd = [
      '',
      ' ',
      'utc',
      'UTC ',
      '+02:00',
      'GMT+2',
      'Etc/GMT+14',
      'Etc/GMT-15',
      'Mars/Olympus',
      'x'.repeat(300),
      12,
    ];
    await expectAnswered(
      storeToken,
      odd.map((zone) => rangeQuery('last 7 days', zone)),
      (query) => [String(query.timezone)],
    );
  }, 60_000);
});
