import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { computeLayout } from '../../src/render/layout';
import { renderDashboard } from '../../src/render/render';
import { businessReview, gridConfig, pngSize } from './helpers';

const pos = (x: number, y: number, w: number, h: number) => ({ x, y, w, h });

/** n full-width widgets of one 400 px row each, stacked. */
const stacked = (n: number, h = 1) =>
  gridConfig(
    Array.from({ length: n }, (_, i) => ({
      id: `w${i}`,
      type: 'TEXT',
      position: pos(0, i * h, 12, h),
      config: { title: `Widget ${i}`, text: 'Text' },
    })),
    { rowHeight: 400, margin: [10, 10], containerPadding: [10, 10] },
  );

describe('PNG', () => {
  it('is a PNG of the layout size (1280 px wide by default)', async () => {
    const out = await renderDashboard(businessReview, 'png');
    expect(out.contentType).toBe('image/png');
    const size = pngSize(out.bytes);
    expect(size).toEqual({ width: 1280, height: computeLayout(businessReview).height });
    expect(size.height).toBeGreaterThan(1000);
  });

  it('is drawn at the width asked for, with that width’s breakpoint', async () => {
    const out = await renderDashboard(businessReview, 'png', { width: 700 });
    expect(out.layout.breakpoint).toBe('xs');
    expect(pngSize(out.bytes)).toEqual({ width: 700, height: out.layout.height });
  });

  it('draws a very tall dashboard smaller rather than exhausting memory', async () => {
    const out = await renderDashboard({ config: stacked(40) }, 'png');
    const size = pngSize(out.bytes);
    expect(out.layout.height).toBeGreaterThan(10_000);
    expect(size.width * size.height).toBeLessThanOrEqual(8_000_000);
    expect(size.width / size.height).toBeCloseTo(1280 / out.layout.height, 2);
  });
});

describe('PDF', () => {
  it('parses, carries the title and breaks the sample into A4-landscape pages', async () => {
    const out = await renderDashboard(businessReview, 'pdf');
    expect(out.contentType).toBe('application/pdf');
    expect(new TextDecoder().decode(out.bytes.subarray(0, 5))).toBe('%PDF-');
    const doc = await PDFDocument.load(out.bytes);
    expect(doc.getTitle()).toBe('Business review');
    expect(doc.getPageCount()).toBe(2);
    const { width, height } = doc.getPage(0).getSize();
    expect(width).toBe(960);
    expect(height).toBeCloseTo(((1280 * 210) / 297) * 0.75, 0);
  });

  it('has one page for a short dashboard and breaks between widgets, never through one', async () => {
    const one = await PDFDocument.load((await renderDashboard({ config: stacked(2) }, 'pdf')).bytes);
    expect(one.getPageCount()).toBe(1);
    // 400 px widgets on 905 px pages: two per page.
    const six = await PDFDocument.load((await renderDashboard({ config: stacked(6) }, 'pdf')).bytes);
    expect(six.getPageCount()).toBe(3);
    // A widget taller than a page gets a taller page of its own.
    const tall = await PDFDocument.load((await renderDashboard({ config: stacked(2, 3) }, 'pdf')).bytes);
    expect(tall.getPageCount()).toBe(2);
    expect(tall.getPage(0).getHeight()).toBeGreaterThan(1200 * 0.75);
  });
});

describe('robustness', () => {
  const hostile = [
    null,
    {},
    { widgets: [] },
    {
      title: 'T\u0000\u0007<&>"\'\uD800',
      widgets: [{ id: 'x', type: 'TEXT', position: pos(0, 0, 1, 1), config: { text: 'a'.repeat(50_000) } }],
    },
    {
      theme: { backgroundColor: 'url(javascript:x)', widgets: { border: { width: 'NaN', radius: '-5px' } } },
      layout: { rowHeight: 0, cols: { lg: 0 } },
    },
    {
      widgets: [
        { id: 'c', type: 'CHART', position: pos(0, 0, 6, 1), config: { reportId: 1 } },
        { id: 'k', type: 'CHART', position: pos(6, 0, 6, 1), config: { reportId: 2, chartType: 'kpi' } },
        { id: 'z', type: 'UNKNOWN', position: pos(0, 1, 1, 1) },
        { id: 'bad', type: 'TEXT', position: { x: -1, y: 'a', w: 0, h: 1 } },
      ],
    },
  ];
  const snapshots = [
    {
      reportId: 1,
      spec: JSON.stringify({
        type: 'line',
        data: [
          { label: 'a', value: 1e308 },
          { label: 'b', value: -1e308 },
        ],
      }),
    },
    { reportId: 2, spec: JSON.stringify({ type: 'bar', data: [{ label: '\u0001', value: 0 }] }) },
  ];

  it('renders any stored config to a valid PNG and PDF', async () => {
    for (const config of hostile) {
      const input = { config: config as never, reportSnapshots: snapshots };
      const png = await renderDashboard(input, 'png');
      expect(pngSize(png.bytes).width).toBe(1280);
      const pdf = await PDFDocument.load((await renderDashboard(input, 'pdf')).bytes);
      expect(pdf.getPageCount()).toBeGreaterThanOrEqual(1);
    }
  });

  it('escapes every text in the SVG', async () => {
    const out = await renderDashboard(
      { config: { title: '</text><script>alert(1)</script>', widgets: [] } },
      'svg',
    );
    const svg = new TextDecoder().decode(out.bytes);
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&#60;/text&#62;&#60;script&#62;');
  });
});
