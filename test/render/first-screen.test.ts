import { describe, expect, it } from 'vitest';
import { demoDashboard, demoReports } from '../../scripts/demo-data.mjs';
import { chartNodes } from '../../src/render/charts';
import { dashboardFragment } from '../../src/render/html';
import { computeLayout } from '../../src/render/layout';
import { renderDashboard } from '../../src/render/render';
import type { RenderInput } from '../../src/render/render.types';
import { widgetBoxes } from '../../src/render/scene';
import type { SceneNode } from '../../src/render/scene-nodes';
import { widgetContents } from '../../src/render/widget-content';

// The demo's "Sales overview" (`npm run seed`) as an embed load answers it: each report's chart
// settings with the rows of its query, the members' titles and the model's formats
// (`order_items.revenue` is `format: currency`), as src/dashboards/live-reports.service.ts writes
// them. The viewer draws it at every breakpoint; the PNG/PDF at the width asked.

const CATEGORIES = ['Sports', 'Electronics', 'Books', 'Garden', 'Toys', 'Home'];
const COUNTRIES = [
  'Japan',
  'Brazil',
  'France',
  'United States',
  'Germany',
  'India',
  'United Kingdom',
  'Spain',
];
const MONTHS = Array.from({ length: 36 }, (_, i) => {
  const d = new Date(Date.UTC(2023, i, 1));
  return `${d.toISOString().slice(0, 10)}T00:00:00.000`;
});
const PRODUCTS = [
  ['Classic Speaker 88', 'Sports', 482642.27, 2595],
  ['Vintage Kettle 114', 'Books', 476592.03, 2574],
  ['Vintage Racket 120', 'Books', 476303.28, 2548],
  ['Compact Puzzle 97', 'Electronics', 475382.54, 2540],
  ['Compact Mug 109', 'Electronics', 474686.12, 2466],
  ['Smart Backpack 107', 'Toys', 465391.12, 2580],
  ["Chef's Backpack 66", 'Books', 461735.69, 2453],
  ['Smart Lamp 42', 'Books', 460144.49, 2577],
  ['Ultra Drone 118', 'Sports', 458840.69, 2474],
  ['Eco Speaker 28', 'Sports', 458731.94, 2407],
] as const;

const REVENUE = 'order_items.revenue';
const LABELS = {
  [REVENUE]: 'Revenue',
  'order_items.quantity': 'Quantity',
  'orders.count': 'Count',
  'orders.completion_rate': 'Completion Rate',
  'products.category': 'Category',
  'products.name': 'Name',
  'customers.country': 'Country',
  'orders.created_at.month': 'Created at',
};
const FORMATS = { [REVENUE]: 'currency', 'orders.completion_rate': 'percent' };

const DATA: Record<string, Record<string, unknown>[]> = {
  revenue: [{ [REVENUE]: '29574195.48' }],
  orders: [{ 'orders.count': '40000' }],
  completion: [{ 'orders.completion_rate': '71.84' }],
  // One month carries cents that end in zero: $3,911,665.70, never $3,911,665.7.
  trend: MONTHS.map((m, i) => ({
    'orders.created_at.month': m,
    [REVENUE]: i === 35 ? '3911665.7' : 1e5 * (i + 1),
  })),
  status: ['completed', 'shipped', 'pending', 'cancelled', 'returned'].map((s, i) => ({
    'orders.status': s,
    'orders.count': 20000 / (i + 1),
  })),
  categories: CATEGORIES.map((c, i) => ({ 'products.category': c, [REVENUE]: 6.1e6 - i * 4e5 })),
  countries: COUNTRIES.map((c, i) => ({ 'customers.country': c, 'orders.count': 5600 - i * 150 })),
  products: PRODUCTS.map(([name, category, revenue, quantity]) => ({
    'products.name': name,
    'products.category': category,
    [REVENUE]: revenue,
    'order_items.quantity': quantity,
  })),
};

function demoInput(): RenderInput {
  const reports = demoReports();
  const ids = Object.fromEntries(reports.map((r, i) => [r.key, i + 1]));
  return {
    config: demoDashboard(ids) as RenderInput['config'],
    reportSnapshots: reports.map((r, i) => {
      const y = typeof r.spec.y === 'string' ? [r.spec.y] : (r.query.measures as string[]);
      const spec = { ...r.spec, y, labels: LABELS, formats: FORMATS, grains: {}, data: DATA[r.key] };
      if (r.key === 'trend') spec.grains = { 'orders.created_at.month': 'month' };
      return { reportId: i + 1, name: r.name, title: r.name, spec: JSON.stringify(spec) };
    }),
  } as RenderInput;
}

const input = demoInput();
const texts = (nodes: SceneNode[]) =>
  nodes.filter((n): n is Extract<SceneNode, { kind: 'text' }> => n.kind === 'text');

/** The drawing of a widget at a viewer width, as chartNodes makes it for that box. */
function drawn(width: number, id: string) {
  const layout = computeLayout(input, { width, contents: widgetContents(input) });
  const widget = layout.widgets.find((w) => w.id === id);
  if (widget?.content.kind !== 'chart') throw new Error(`no chart ${id}`);
  const { body } = widgetBoxes(widget, layout.theme);
  const box = { x: 0, y: 0, w: Math.round(body.w), h: Math.round(body.h) };
  return { box, nodes: chartNodes(widget.content.chart, box, layout.theme, { title: widget.title }) };
}

const WIDTHS = [1280, 360];

describe('category labels', () => {
  it.each(WIDTHS)('labels every bar at %i px, in full or turned, never dropped', (width) => {
    for (const [id, categories] of [
      ['categories', CATEGORIES],
      ['countries', COUNTRIES],
    ] as const) {
      const labels = texts(drawn(width, id).nodes).filter((t) => t.y > 20 && !/^\$?\d/.test(t.text));
      expect(
        labels.map((t) => t.text),
        `${id} at ${width}`,
      ).toEqual([...categories]);
    }
  });

  it('turns the labels of a bar chart that do not fit level, and keeps them inside the box', () => {
    const { box, nodes } = drawn(360, 'countries');
    const labels = texts(nodes).filter((t) => COUNTRIES.includes(t.text));
    expect(labels.every((t) => t.rotate === -45 && t.anchor === 'end')).toBe(true);
    for (const t of labels) expect(t.x).toBeLessThanOrEqual(box.w);
    // At 1280 px the six categories fit side by side.
    expect(texts(drawn(1280, 'categories').nodes).some((t) => t.rotate)).toBe(false);
  });

  it.each(WIDTHS)("keeps the line's last month label whole inside the box at %i px", (width) => {
    const { box, nodes } = drawn(width, 'trend');
    const months = texts(nodes).filter((t) => / 20\d\d$/.test(t.text) || /…$/.test(t.text));
    expect(months.every((t) => !t.text.endsWith('…'))).toBe(true);
    const last = months[months.length - 1];
    // At 360 px every seventh month is labelled, December 2025 last (it was drawn as "Dec 2").
    if (width === 360) expect(last?.text).toBe('Dec 2025');
    // Anchored at the right edge (or centred with room): it ends inside the box in any font.
    if (last?.anchor === 'end') expect(last.x).toBeLessThanOrEqual(box.w);
    else expect(last?.anchor).toBe('middle');
  });

  it('draws the same labels in the PNG (its SVG) as the viewer does', async () => {
    for (const width of WIDTHS) {
      const svg = new TextDecoder().decode((await renderDashboard(input, 'svg', { width })).bytes);
      for (const label of [...CATEGORIES, ...COUNTRIES, ...(width === 360 ? ['Dec 2025'] : [])]) {
        expect(svg, `${label} at ${width}`).toContain(`>${label}</text>`);
      }
      expect(svg).not.toContain('United Ki…');
    }
    const pdf = await renderDashboard(input, 'pdf', { width: 360 });
    expect(new TextDecoder().decode(pdf.bytes.subarray(0, 5))).toBe('%PDF-');
  });
});

describe('money', () => {
  it('is written one way wherever a currency column shows: symbol, thousands, two fixed decimals', async () => {
    const { html } = dashboardFragment(input);
    expect(html).toContain('>$29,574,195.48</text>');
    expect(html).toContain('<title>Dec 2025: $3,911,665.70</title>');
    expect(html).not.toMatch(/\$[\d,]+\.\d(?!\d)/);
    expect(html).toContain('<td class="eb-num">$482,642.27</td>');
    expect(html).toContain('<td class="eb-num">2,595</td>');
    // The axis keeps its compact ticks, in the same currency.
    expect(html).toContain('>$4M</text>');
    const svg = new TextDecoder().decode((await renderDashboard(input, 'svg', { width: 1280 })).bytes);
    expect(svg).toContain('>$29,574,195.48</text>');
    expect(svg).toContain('>$482,642.27</text>');
  });

  it('takes a currency unit as the format when the model names none', () => {
    const spec = { type: 'kpi', y: 'amount', unit: '$', data: [{ amount: 1234.5 }] };
    const unitOnly = {
      config: {
        widgets: [{ id: 'k', type: 'CHART', position: { x: 0, y: 0, w: 4, h: 2 }, config: { reportId: 1 } }],
      },
      reportSnapshots: [{ reportId: 1, title: 'Amount', spec: JSON.stringify(spec) }],
    } as RenderInput;
    expect(dashboardFragment(unitOnly).html).toContain('>$1,234.50</text>');
  });

  it("writes a table's measures in its currency unit too, and leaves its other columns alone", () => {
    const spec = {
      type: 'table',
      y: ['amount'],
      unit: '€',
      data: [
        { shop: 'Lyon', year: 2024, amount: 1234.5 },
        { shop: 'Nice', year: 2025, amount: 99 },
      ],
    };
    const table = {
      config: {
        widgets: [{ id: 't', type: 'CHART', position: { x: 0, y: 0, w: 6, h: 3 }, config: { reportId: 1 } }],
      },
      reportSnapshots: [{ reportId: 1, title: 'Sales', spec: JSON.stringify(spec) }],
    } as RenderInput;
    const { html } = dashboardFragment(table);
    expect(html).toContain('<td class="eb-num">€1,234.50</td>');
    expect(html).toContain('<td class="eb-num">€99.00</td>');
    expect(html).toContain('<td class="eb-num">2024</td>');
    expect(html).not.toContain('€2,024');
  });
});

describe('KPI captions', () => {
  it('say nothing the title says: no "Revenue" under Revenue, no "Count" under Orders', () => {
    for (const [id, value] of [
      ['revenue', '$29,574,195.48'],
      ['orders', '40,000'],
      ['completion', '71.84%'],
    ] as const) {
      for (const width of WIDTHS) expect(texts(drawn(width, id).nodes).map((t) => t.text)).toEqual([value]);
    }
  });

  it('name the measure of an untitled KPI', () => {
    const layout = computeLayout(input, { width: 1280 });
    const widget = layout.widgets.find((w) => w.id === 'orders');
    if (widget?.content.kind !== 'chart') throw new Error('no KPI');
    const nodes = chartNodes(widget.content.chart, { x: 0, y: 0, w: 300, h: 120 }, layout.theme);
    expect(texts(nodes).map((t) => t.text)).toEqual(['40,000', 'Count']);
  });
});

describe('the top products table', () => {
  it('is an HTML table in the viewer: every name whole, numbers on the right', () => {
    const { html, css } = dashboardFragment(input);
    const table = /<table class="eb-table">.*?<\/table>/.exec(html)?.[0] ?? '';
    expect(table).toContain(
      '<th scope="col">Name</th><th scope="col">Category</th><th scope="col" class="eb-num">Revenue</th><th scope="col" class="eb-num">Quantity</th>',
    );
    for (const [name] of PRODUCTS) expect(table).toContain(`<td>${name.replace("'", '&#39;')}</td>`);
    expect(html).not.toMatch(/<svg[^>]*aria-label="Top products"/);
    // It spans its card and shares the card's height among its rows.
    expect(css).toContain('.eb-table{color:');
  });

  it('spans its box in the PNG: numbers end at the right edge, rows fill the height', () => {
    const layout = computeLayout(input, { width: 1280 });
    const widget = layout.widgets.find((w) => w.id === 'products');
    if (widget?.content.kind !== 'chart') throw new Error('no table');
    const { body } = widgetBoxes(widget, layout.theme);
    const nodes = chartNodes(widget.content.chart, body, layout.theme);
    const quantity = texts(nodes).filter((t) => t.text === '2,595' || t.text === 'Quantity');
    for (const t of quantity) {
      expect(t.anchor).toBe('end');
      expect(t.x).toBeCloseTo(body.x + body.w - 6, 0);
    }
    const rules = nodes.filter((n) => n.kind === 'path');
    const lastRule = rules[rules.length - 1];
    const y = Number(/^M[\d.]+ ([\d.]+)H/.exec(lastRule?.kind === 'path' ? lastRule.d : '')?.[1]);
    // Ten rows and the header in about the whole body height (rows up to 28 px), not 220 px of it.
    expect(y + 28 - body.y).toBeGreaterThan(Math.min(body.h, 11 * 28) - 30);
  });
});
