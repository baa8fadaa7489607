import { describe, expect, it } from 'vitest';
import { parseChartSpec } from '../../src/render/chart-spec';
import { parseColor } from '../../src/render/color';
import { breakpointFor, gridSpec } from '../../src/render/grid';
import { computeLayout } from '../../src/render/layout';
import { resolveTheme } from '../../src/render/theme';
import { businessReview, gridConfig } from './helpers';

const pos = (x: number, y: number, w: number, h: number) => ({ x, y, w, h });

describe('grid', () => {
  it('defaults to react-grid-layout responsive defaults when the config has no layout', () => {
    const grid = gridSpec({ config: {} });
    expect(grid.breakpoints).toEqual({ lg: 1200, md: 996, sm: 768, xs: 480, xxs: 0 });
    expect(grid.cols).toEqual({ lg: 12, md: 10, sm: 6, xs: 4, xxs: 2 });
    expect(grid.rowHeight).toBe(150);
    expect(grid.margin).toEqual([10, 10]);
    expect(grid.padding).toEqual([10, 10]);
  });

  it('picks the widest breakpoint below the width, as react-grid-layout does', () => {
    const grid = gridSpec({ config: {} });
    expect(breakpointFor(grid, 1280)).toBe('lg');
    expect(breakpointFor(grid, 1200)).toBe('md');
    expect(breakpointFor(grid, 800)).toBe('sm');
    expect(breakpointFor(grid, 481)).toBe('xs');
    expect(breakpointFor(grid, 300)).toBe('xxs');
    const custom = gridSpec({
      config: { layout: { breakpoints: { lg: 2000, md: 1000, sm: 500, xs: 200, xxs: 0 } } },
    });
    expect(breakpointFor(custom, 1280)).toBe('md');
  });

  it('places a widget at its position with the grid arithmetic (cols, rowHeight, margin, padding)', () => {
    // (1350 - 11 * 10 - 2 * 20) / 12 = 100 px per column.
    const layout = computeLayout(
      { config: gridConfig([{ id: 'a', type: 'TEXT', position: pos(2, 1, 3, 2), config: { text: 'hi' } }]) },
      { width: 1350 },
    );
    expect(layout.breakpoint).toBe('lg');
    expect(layout.widgets[0]?.grid).toEqual(pos(2, 1, 3, 2));
    expect(layout.widgets[0]?.rect).toEqual({ x: 240, y: 130, w: 320, h: 210 });
    // Rows 0..2 of 100 px, 10 px between, 20 px padding above and below.
    expect(layout.height).toBe(3 * 100 + 2 * 10 + 2 * 20);
  });

  it('uses the responsiveLayouts entry of the breakpoint the width falls in', () => {
    const config = gridConfig([
      {
        id: 'a',
        type: 'TEXT',
        position: pos(6, 0, 6, 1),
        responsiveLayouts: { sm: pos(1, 3, 4, 2), xs: null },
      },
    ]);
    const sm = computeLayout({ config }, { width: 800 });
    expect(sm.breakpoint).toBe('sm');
    expect(sm.widgets[0]?.grid).toEqual(pos(1, 3, 4, 2));
    // (800 - 5 * 10 - 40) / 6 columns.
    const col = (800 - 50 - 40) / 6;
    expect(sm.widgets[0]?.rect.x).toBeCloseTo(20 + (col + 10), 1);
    expect(sm.widgets[0]?.rect.w).toBeCloseTo(col * 4 + 30, 1);
    const lg = computeLayout({ config }, { width: 1280 });
    expect(lg.widgets[0]?.grid).toEqual(pos(6, 0, 6, 1));
  });

  it('fits positions into a narrower grid without a layout of its own, moving overlaps down', () => {
    const config = gridConfig([
      { id: 'left', type: 'TEXT', position: pos(0, 0, 6, 2) },
      { id: 'right', type: 'TEXT', position: pos(6, 0, 6, 2) },
      { id: 'fixed', type: 'TEXT', position: pos(0, 2, 12, 1), responsiveLayouts: { xs: pos(0, 5, 4, 1) } },
    ]);
    const xs = computeLayout({ config }, { width: 600 });
    expect(xs.breakpoint).toBe('xs');
    const grid = Object.fromEntries(xs.widgets.map((w) => [w.id, w.grid]));
    expect(grid.left).toEqual(pos(0, 0, 4, 2));
    expect(grid.right).toEqual(pos(0, 2, 4, 2));
    expect(grid.fixed).toEqual(pos(0, 5, 4, 1));
  });

  it('applies the theme: colours, fonts, borders, padding; unparseable values fall back', () => {
    const theme = resolveTheme({
      backgroundColor: '#102030',
      primaryColor: 'rebeccapurple',
      fontFamily: 'Inter',
      widgets: {
        backgroundColor: 'rgba(255, 0, 0, 0.5)',
        padding: '20px',
        border: { color: '#abc', radius: '4', width: '2px', style: 'dashed' },
        title: { color: 'hsl(120, 100%, 25%)', fontSize: '18px', fontWeight: 'bold' },
        text: { color: 'not-a-colour', fontFamily: 'x;}</style><script>' },
      },
      controls: { backgroundColor: '#eee' },
    });
    expect(theme.background).toEqual({ r: 16, g: 32, b: 48, a: 1 });
    expect(theme.primary).toEqual({ r: 102, g: 51, b: 153, a: 1 });
    expect(theme.palette[0]).toEqual(theme.primary);
    expect(theme.fontFamily.startsWith('Inter, ')).toBe(true);
    expect(theme.widget.background).toEqual({ r: 255, g: 0, b: 0, a: 0.5 });
    expect(theme.widget.padding).toBe(20);
    expect(theme.widget.border).toEqual({
      color: { r: 170, g: 187, b: 204, a: 1 },
      width: 2,
      radius: 4,
      style: 'dashed',
    });
    expect(theme.widget.title).toMatchObject({
      color: { r: 0, g: 128, b: 0, a: 1 },
      fontSize: 18,
      fontWeight: 700,
    });
    expect(theme.widget.text.color).toEqual(parseColor('#374151'));
    expect(theme.widget.text.fontFamily).toBe(theme.fontFamily);
    expect(theme.control.background).toEqual(parseColor('#eee'));
    expect(theme.control.border).toEqual(theme.widget.border);
  });

  it('lets theme spacing (dashboard.padding, widgets.margin) override the layout', () => {
    const grid = gridSpec({
      config: {
        layout: { margin: [4, 4] },
        theme: { dashboard: { padding: '24px' }, widgets: { margin: '8' } },
      },
    });
    expect(grid.padding).toEqual([24, 24]);
    expect(grid.margin).toEqual([8, 8]);
  });

  it('clamps absurd grids and cuts a dashboard taller than a render may be', () => {
    const layout = computeLayout({
      config: gridConfig(
        [
          { id: 'a', type: 'TEXT', position: pos(0, 0, 10_000, 10_000) },
          { id: 'b', type: 'TEXT', position: pos(0, 9_000, 1, 1) },
        ],
        { cols: { lg: 10_000 }, margin: [10_000, 10_000] },
      ),
    });
    expect(layout.truncated).toBe(true);
    expect(layout.widgets.map((w) => w.id)).toEqual(['a']);
    expect(layout.height).toBeLessThanOrEqual(12_000 + 200);
    for (const v of Object.values(layout.widgets[0]?.rect ?? {})) expect(Number.isFinite(v)).toBe(true);
  });
});

describe('widget content', () => {
  const snapshots = [
    {
      id: 9,
      reportId: 7,
      title: 'Orders',
      spec: JSON.stringify({ type: 'bar', data: [{ label: 'a', value: '3' }] }),
    },
    { id: 10, reportId: 8, title: 'Empty', spec: JSON.stringify({ type: 'bar', data: [] }) },
  ];
  const config = gridConfig(
    [
      {
        id: 't',
        type: 'TEXT',
        position: pos(0, 0, 4, 1),
        config: { title: 'Intro', text: 'Hello\u0000 world' },
      },
      {
        id: 'f',
        type: 'FILTER',
        position: pos(4, 0, 4, 1),
        config: { member: 'Orders.country', defaultValue: 'FR' },
      },
      {
        id: 'g',
        type: 'TIME_GRAIN',
        position: pos(8, 0, 4, 1),
        config: { title: 'Grain', defaultValue: 'week' },
      },
      { id: 'c', type: 'CHART', position: pos(0, 1, 6, 2), config: { reportId: 7 } },
      { id: 'e', type: 'CHART', position: pos(6, 1, 6, 2), config: { title: 'Nothing', reportId: 8 } },
      { id: 'n', type: 'CHART', position: pos(0, 3, 6, 2), config: { title: 'No report' } },
    ],
    {},
    { title: 'Sales', description: 'Weekly' },
  );

  it('reads titles, text, control values and charts', () => {
    const layout = computeLayout({ config, reportSnapshots: snapshots });
    const byId = Object.fromEntries(layout.widgets.map((w) => [w.id, w]));
    expect(layout.header).toMatchObject({ title: 'Sales', description: 'Weekly' });
    expect(byId.t).toMatchObject({ title: 'Intro', content: { kind: 'text', text: 'Hello world' } });
    expect(byId.f?.content).toEqual({
      kind: 'control',
      control: 'filter',
      label: 'Orders.country',
      value: 'FR',
      applied: 'Country: FR',
    });
    expect(byId.f?.title).toBe('Orders.country');
    expect(byId.g).toMatchObject({ title: 'Grain', content: { kind: 'control', value: 'Week' } });
    // A chart without a title takes its report's.
    expect(byId.c?.title).toBe('Orders');
    expect(byId.c?.content).toMatchObject({
      kind: 'chart',
      chart: { type: 'bar', categories: ['a'], series: [{ name: 'value', values: [3] }] },
    });
    expect(byId.e?.content).toEqual({ kind: 'frame', caption: 'No data', tabs: [] });
    expect(byId.n?.content).toEqual({ kind: 'frame', caption: 'No data', tabs: [] });
  });

  it('shows the current filter and time-grain values given with the render', () => {
    const byMap = computeLayout({ config, filters: { f: ['DE', 'IT'] }, timeGrains: { g: 'month' } });
    const w = Object.fromEntries(byMap.widgets.map((x) => [x.id, x.content]));
    expect(w.f).toMatchObject({ value: 'DE, IT' });
    expect(w.g).toMatchObject({ value: 'Month' });
    const byList = computeLayout({
      config,
      filters: [{ member: 'Orders.country', values: ['ES'] }],
      timeGrains: [{ widgetId: 'g', grain: 'quarter' }],
    });
    const l = Object.fromEntries(byList.widgets.map((x) => [x.id, x.content]));
    expect(l.f).toMatchObject({ value: 'ES' });
    expect(l.g).toMatchObject({ value: 'Quarter' });
  });

  it('lays out the 20-widget sample with every widget in place', () => {
    const layout = computeLayout(businessReview);
    expect(layout.widgets).toHaveLength(20);
    expect(layout.truncated).toBe(false);
    expect(layout.widgets.filter((w) => w.content.kind === 'chart')).toHaveLength(9);
  });
});

describe('chart specs', () => {
  it('parses {type, data, x, y} with numeric strings and picks defaults', () => {
    const spec = parseChartSpec(
      JSON.stringify({
        type: 'line',
        x: 'day',
        y: ['a', 'b'],
        data: [
          { day: 'Mon', a: 1, b: '2.5' },
          { day: 'Tue', a: null, b: 4 },
        ],
      }),
    );
    expect(spec).toMatchObject({
      type: 'line',
      categories: ['Mon', 'Tue'],
      series: [
        { name: 'a', values: [1, null] },
        { name: 'b', values: [2.5, 4] },
      ],
    });
    const guessed = parseChartSpec(
      JSON.stringify({ type: 'bar', data: [{ country: 'FR', orders: 3, revenue: 9 }] }),
    );
    expect(guessed?.categories).toEqual(['FR']);
    expect(guessed?.series.map((s) => s.name)).toEqual(['orders', 'revenue']);
  });

  it('has no data for anything it cannot draw', () => {
    for (const spec of [
      null,
      '',
      'not json',
      '[]',
      '{"type":"bar"}',
      '{"type":"bar","data":[]}',
      '{"type":"bar","data":[{"label":"a","value":"x"}]}',
      '{"type":"__proto__","data":[{"value":1}]}',
      '{"type":"sankey","data":[{"value":1}]}',
      '{"measures":["Orders.count"]}',
    ]) {
      expect(parseChartSpec(spec), String(spec)).toBeNull();
    }
  });

  it('lets a widget choose another chart type for its report', () => {
    const spec = JSON.stringify({ type: 'bar', data: [{ label: 'a', value: 1 }] });
    expect(parseChartSpec(spec, 'pie')?.type).toBe('pie');
    expect(parseChartSpec(spec, 'unknown')?.type).toBe('bar');
  });
});
