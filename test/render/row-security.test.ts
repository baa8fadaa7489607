import { describe, expect, it } from 'vitest';
import type { ReportSnapshot } from '../../src/dashboards/dashboards.schemas';
import { attributesByName, restrictSnapshots } from '../../src/dashboards/row-security';

const snapshot = (spec: string): ReportSnapshot =>
  ({
    id: 1,
    reportId: 1,
    versionNumber: 1,
    name: 'r',
    title: 'r',
    description: '',
    spec,
    sqlQuery: '',
    meta: {},
  }) as ReportSnapshot;

const sales = JSON.stringify({
  type: 'bar',
  x: 'month',
  y: 'revenue',
  data: [
    { month: 'Jan', region: 'EU', revenue: 10 },
    { month: 'Jan', region: 'US', revenue: 20 },
    { month: 'Feb', region: 'APAC', revenue: 30 },
    { month: 'Feb', revenue: 40 },
  ],
});

const dataOf = (s: ReportSnapshot) => JSON.parse(s.spec).data;

describe('restrictSnapshots (row-level security on report rows)', () => {
  it('keeps the rows whose column equals the attribute, and rows without that column', () => {
    const [out] = restrictSnapshots([snapshot(sales)], { region: 'EU' });
    expect(dataOf(out as ReportSnapshot)).toEqual([
      { month: 'Jan', region: 'EU', revenue: 10 },
      { month: 'Feb', revenue: 40 },
    ]);
    expect(JSON.parse((out as ReportSnapshot).spec)).toMatchObject({ type: 'bar', x: 'month', y: 'revenue' });
  });

  it('takes an array value as a set of allowed values, comparing numbers and strings alike', () => {
    const [out] = restrictSnapshots([snapshot(sales)], { region: ['EU', 'US'], revenue: [10, '20', 40] });
    expect(dataOf(out as ReportSnapshot).map((r: { revenue: number }) => r.revenue)).toEqual([10, 20, 40]);
  });

  it('leaves snapshots untouched without attributes, for unknown columns, and for non-row specs', () => {
    const plain = snapshot(sales);
    expect(restrictSnapshots([plain], null)[0]).toBe(plain);
    expect(restrictSnapshots([plain], {})[0]).toBe(plain);
    expect(restrictSnapshots([plain], { team: 'blue' })[0]).toBe(plain);
    const text = snapshot('SELECT 1');
    expect(restrictSnapshots([text], { region: 'EU' })[0]).toBe(text);
    const noData = snapshot('{"type":"bar"}');
    expect(restrictSnapshots([noData], { region: 'EU' })[0]).toBe(noData);
  });

  it('fails closed: a restricting attribute without a viewer value hides every row carrying that column', () => {
    const regions = (out: ReportSnapshot[]) =>
      dataOf(out[0] as ReportSnapshot).map((r: { region?: string; month: string }) => r.region ?? r.month);
    // Restricting because the catalogue has it (restrictedBy), though this viewer holds no value.
    expect(regions(restrictSnapshots([snapshot(sales)], {}, { restrictedBy: ['region'] }))).toEqual(['Feb']);
    expect(
      regions(restrictSnapshots([snapshot(sales)], { team: 'x' }, { restrictedBy: ['region'] })),
    ).toEqual(['Feb']);
    // Restricting because the report declares it.
    const declared = snapshot(JSON.stringify({ ...JSON.parse(sales), rowSecurity: ['region'] }));
    expect(regions(restrictSnapshots([declared], {}))).toEqual(['Feb']);
    expect(regions(restrictSnapshots([declared], { region: 'US' }))).toEqual(['US', 'Feb']);
    // An empty list of values allows nothing either.
    expect(regions(restrictSnapshots([snapshot(sales)], { region: [] }))).toEqual(['Feb']);
    // No viewer (an account user, a non-embed recipient): nothing is filtered, declared or not.
    expect(restrictSnapshots([declared], null, { restrictedBy: ['region'] })[0]).toBe(declared);
    // A restricting name that is no column of the rows changes nothing.
    const plain = snapshot(sales);
    expect(restrictSnapshots([plain], {}, { restrictedBy: ['team'] })[0]).toBe(plain);
  });

  it("reads embed recipients' attribute lists", () => {
    expect(attributesByName([{ name: 'region', value: 'EU' }])).toEqual({ region: 'EU' });
    expect(attributesByName(null)).toBeNull();
  });
});
