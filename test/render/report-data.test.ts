import { describe, expect, it } from 'vitest';
import { columnFormatsOf, formatValue, parseColumnFormat } from '../../src/render/column-format';
import { dashboardFragment } from '../../src/render/html';
import { computeLayout } from '../../src/render/layout';
import { renderDashboard } from '../../src/render/render';
import type { RenderInput, RenderSnapshot } from '../../src/render/render.types';
import { pdfText } from '../helpers/pdf-text';

const chart = (id: string, reportId: number, x: number, y: number, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'CHART',
  position: { x, y, w: 6, h: 2 },
  config: { reportId, ...extra },
});

function board(
  snapshots: RenderSnapshot[],
  widgets = snapshots.map((s, i) => chart(`c${i}`, s.reportId, 0, i * 2)),
) {
  return { config: { title: 'Sales', widgets }, reportSnapshots: snapshots } satisfies RenderInput;
}

const svgOf = async (input: RenderInput) =>
  new TextDecoder().decode((await renderDashboard(input, 'svg')).bytes);

const format = (value: number, f: Record<string, unknown>, compact = false) => {
  const parsed = parseColumnFormat(f);
  expect(parsed, JSON.stringify(f)).not.toBeNull();
  return formatValue(value, parsed as NonNullable<typeof parsed>, { compact });
};

describe('a chart whose query failed', () => {
  const message = `relation "orders" does not exist <script>alert(1)</script> ${'x'.repeat(400)}`;
  const input = board([
    {
      reportId: 1,
      title: 'Revenue',
      // Rows from an earlier run do not count: the query failed.
      spec: JSON.stringify({ type: 'bar', data: [{ label: 'a', value: 1 }] }),
      error: message,
    },
  ]);

  it('is the titled frame with "Could not load data" and the message, escaped and bounded', () => {
    const widget = computeLayout(input).widgets[0];
    expect(widget?.title).toBe('Revenue');
    expect(widget?.content.kind).toBe('frame');
    const detail = widget?.content.kind === 'frame' ? (widget.content.detail ?? '') : '';
    expect(Array.from(detail).length).toBe(200);
    expect(detail.startsWith('relation "orders" does not exist <script>')).toBe(true);
    expect(detail.endsWith('x…')).toBe(true);
    const { html } = dashboardFragment(input);
    expect(html).not.toContain('<svg class="eb-chart');
    expect(html).toContain(
      '<div class="eb-caption eb-caption--error">Could not load data<span class="eb-caption-detail">relation &#34;orders&#34; does not exist &#60;script&#62;alert(1)&#60;/script&#62; xxx',
    );
    expect(html).not.toContain('<script>');
  });

  it('says so in the PDF and the PNG too', async () => {
    const text = await pdfText((await renderDashboard(input, 'pdf')).bytes);
    expect(text).toContain('Could not load data');
    expect(text).toContain('relation "orders" does not exist');
    const svg = await svgOf(input);
    expect(svg).toContain('>Could not load data</text>');
    expect(svg).not.toContain('<script>');
  });

  it('an empty error is no error', () => {
    const ok = board([
      { reportId: 1, spec: JSON.stringify({ type: 'bar', data: [{ label: 'a', value: 1 }] }), error: '' },
    ]);
    expect(computeLayout(ok).widgets[0]?.content.kind).toBe('chart');
  });
});

describe('labels in the spec', () => {
  const spec = {
    type: 'bar',
    x: 'orders.month',
    y: ['orders.revenue', 'orders.cost'],
    labels: { 'orders.revenue': 'Revenue', 'orders.cost': 'Cost', 'orders.month': 'Month' },
    data: [
      { 'orders.month': 'Jan', 'orders.revenue': 1000, 'orders.cost': 700 },
      { 'orders.month': 'Feb', 'orders.revenue': 1300, 'orders.cost': 810 },
    ],
  };

  it('name the series in legends and tooltips, and the columns of a table', async () => {
    const input = board([
      { reportId: 1, spec: JSON.stringify(spec) },
      { reportId: 2, spec: JSON.stringify({ ...spec, type: 'table' }) },
    ]);
    const svg = await svgOf(input);
    expect(svg).toContain('>Revenue</text>');
    expect(svg).toContain('>Cost</text>');
    expect(svg).toContain('>Month</text>');
    expect(svg).not.toContain('orders.');
    const { html } = dashboardFragment(input);
    expect(html).toContain('<title>Jan · Revenue: 1,000</title>');
    expect(html).not.toContain('orders.revenue');
  });
});

describe('column formats', () => {
  it('writes numbers by plain arithmetic', () => {
    expect(format(1234.5, { type: 'number' })).toBe('1,234.5');
    expect(format(1234.5678, { type: 'number' })).toBe('1,234.57');
    expect(format(1234.5, { type: 'number', decimals: 0, thousandsSeparator: false })).toBe('1235');
    expect(format(-1234.5, { type: 'currency', currency: 'usd' })).toBe('-$1,234.50');
    expect(format(99.9, { type: 'currency', currency: 'EUR', decimals: 0 })).toBe('€100');
    expect(format(1500, { type: 'currency', currency: 'JPY' })).toBe('¥1,500');
    expect(format(12, { type: 'currency', currency: 'CHF' })).toBe('CHF 12.00');
    expect(format(0.1234, { type: 'percent' })).toBe('12.3%');
    expect(format(0.5, { type: 'percent', decimals: 2 })).toBe('50.00%');
    expect(format(1_234_567, { type: 'number', compact: true })).toBe('1.2M');
    expect(format(999_960, { type: 'number', compact: true })).toBe('1M');
    expect(format(2_500_000_000, { type: 'currency', currency: 'USD', compact: true })).toBe('$2.5B');
    expect(format(42, { type: 'number', prefix: '~', suffix: ' kg' })).toBe('~42 kg');
    expect(format(-0.001, { type: 'number', decimals: 1 })).toBe('0.0');
    expect(format(4000, { type: 'currency', currency: 'USD' }, true)).toBe('$4K');
  });

  it('falls back to the default for shapes it does not know', () => {
    expect(parseColumnFormat({ type: 'date' })).toBeNull();
    expect(parseColumnFormat('currency')).toBeNull();
    expect(parseColumnFormat(null)).toBeNull();
    // Bad options are dropped one by one; the format stays.
    expect(
      parseColumnFormat({ type: 'number', decimals: 9, prefix: 'a very long prefix', currency: 'US' }),
    ).toEqual({
      type: 'number',
      decimals: null,
      currency: null,
      prefix: '',
      suffix: '',
      compact: false,
      thousandsSeparator: true,
    });
    expect(columnFormatsOf({ columnFormats: { a: { type: 'number' }, b: 'x', c: [] } }).size).toBe(1);
    expect(columnFormatsOf('{"columnFormats":{"a":{"type":"percent"}}}').get('a')?.type).toBe('percent');
    for (const junk of [null, 'not json', [], { columnFormats: 'x' }, { columnFormats: [1] }]) {
      expect(columnFormatsOf(junk).size).toBe(0);
    }
  });

  it('format table cells, KPI values and tooltips, keyed by field or by label', async () => {
    const rows = [
      { 'orders.status': 'paid', 'orders.revenue': '1234.5', 'orders.share': 0.25 },
      { 'orders.status': 'open', 'orders.revenue': 99, 'orders.share': 0.75 },
    ];
    const preferences = {
      columnFormats: {
        'orders.revenue': { type: 'currency', currency: 'EUR' },
        // By its label.
        Share: { type: 'percent', decimals: 0 },
      },
    };
    const labels = { 'orders.share': 'Share' };
    const input = board([
      { reportId: 1, spec: JSON.stringify({ type: 'table', labels, data: rows }), preferences },
      { reportId: 2, spec: JSON.stringify({ type: 'kpi', y: 'orders.revenue', data: rows }), preferences },
      {
        reportId: 3,
        spec: JSON.stringify({ type: 'bar', x: 'orders.status', y: 'orders.share', labels, data: rows }),
        preferences,
      },
      // The same data without formats keeps the default writing.
      { reportId: 4, spec: JSON.stringify({ type: 'kpi', y: 'orders.revenue', data: rows }) },
    ]);
    const svg = await svgOf(input);
    for (const cell of ['€1,234.50', '€99.00', '25%', '75%']) expect(svg).toContain(`>${cell}</text>`);
    expect(svg).toContain('>1,234.5</text>');
    // The bar chart's axis is written in the series' format (compact): 0% … 80%.
    expect(svg).toContain('>80%</text>');
    const { html } = dashboardFragment(input);
    expect(html).toContain('<title>paid: 25%</title>');
    expect(html).toContain('<title>open: 75%</title>');
    const pdf = await pdfText((await renderDashboard(input, 'pdf')).bytes);
    expect(pdf).toContain('€1,234.50');
  });
});

describe('a live report’s rows as drawn', () => {
  it('names time buckets for their grain, in charts and tables', async () => {
    const data = [
      { 'orders.created_at.quarter': '2024-01-01T00:00:00.000', 'orders.count': '3' },
      { 'orders.created_at.quarter': '2024-04-01T00:00:00.000', 'orders.count': '5' },
    ];
    const spec = (type: string) =>
      JSON.stringify({
        type,
        x: 'orders.created_at.quarter',
        y: ['orders.count'],
        grains: { 'orders.created_at.quarter': 'quarter' },
        data,
      });
    const svg = await svgOf(board([{ reportId: 1, spec: spec('bar') }]));
    expect(svg).toContain('Q1 2024');
    expect(svg).toContain('Q2 2024');
    expect(svg).not.toContain('2024-01-01T00');
    const table = await svgOf(board([{ reportId: 1, spec: spec('table') }]));
    expect(table).toContain('Q2 2024');
  });

  it('writes a table’s measures with thousands separators and two decimals at most, not its dimensions', async () => {
    const spec = JSON.stringify({
      type: 'table',
      y: ['orders.revenue'],
      data: [{ 'orders.year': '2024', 'orders.revenue': '475382.54260000004' }],
    });
    const svg = await svgOf(board([{ reportId: 1, spec }]));
    expect(svg).toContain('475,382.54');
    expect(svg).not.toContain('475382.5426');
    expect(svg).toContain('>2024<');
  });

  it('captions a KPI without a category by its measure’s label, not a row number', async () => {
    const spec = JSON.stringify({
      type: 'kpi',
      y: ['orders.count'],
      labels: { 'orders.count': 'Orders' },
      data: [{ 'orders.count': '40000' }],
    });
    const svg = await svgOf(board([{ reportId: 1, spec }]));
    expect(svg).toContain('>Orders<');
    expect(svg).not.toMatch(/>1<\/text>/);
  });
});
