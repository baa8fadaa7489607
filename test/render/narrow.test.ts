import { describe, expect, it } from 'vitest';
import { dashboardFragment } from '../../src/render/html';
import { computeLayout } from '../../src/render/layout';
import { renderDashboard } from '../../src/render/render';
import { widgetBoxes } from '../../src/render/scene';
import { businessReview } from './helpers';

/** The `<svg class="eb-chart …">` elements of one widget's markup, with their classes. */
function chartSvgs(
  html: string,
  widgetIndex: number,
): { classes: string[]; viewBox: number[]; body: string }[] {
  const section =
    new RegExp(`<section [^>]*id="eb-w${widgetIndex}"[^>]*>(.*?)</section>`).exec(html)?.[1] ?? '';
  return [...section.matchAll(/<svg class="([^"]*)" viewBox="([^"]*)"[^>]*>(.*?)<\/svg>/g)].map((m) => ({
    classes: (m[1] as string).split(' '),
    viewBox: (m[2] as string).split(' ').map(Number),
    body: m[3] as string,
  }));
}

const fontSizes = (svg: string) => [...svg.matchAll(/font-size="([\d.]+)"/g)].map((m) => Number(m[1]));

describe('charts on a phone (360 px)', () => {
  const { html, css } = dashboardFragment(businessReview);
  const phone = computeLayout(businessReview, { width: 360 });
  // Each wider breakpoint is drawn for the narrowest width of its range (lg: 1201 px).
  const desktop = computeLayout(businessReview, { width: 1201 });
  const charts = phone.widgets.filter((w) => w.content.kind === 'chart');

  it('draws every chart for the box it gets at 360 px, not a shrunken desktop drawing', () => {
    expect(phone.breakpoint).toBe('xxs');
    expect(charts.length).toBe(9);
    // A table is an HTML table in the viewer, the same at every width.
    for (const widget of charts.filter(
      (w) => w.content.kind === 'chart' && w.content.chart.type !== 'table',
    )) {
      const { body } = widgetBoxes(widget, phone.theme);
      // 360 − 2 × 16 container padding − 2 × 12 widget padding: the whole phone width but margins.
      expect(Math.round(body.w)).toBe(304);
      const shown = chartSvgs(html, widget.index).filter((s) => s.classes.includes('eb-chart--xxs'));
      expect(shown.length, widget.id).toBe(1);
      // Drawn at the box's own size: the browser shows it at scale 1, text at the size written.
      expect(shown[0]?.viewBox).toEqual([0, 0, Math.round(body.w), Math.round(body.h)]);
      const sizes = fontSizes(shown[0]?.body ?? '');
      expect(sizes.length, widget.id).toBeGreaterThan(0);
      expect(Math.min(...sizes), widget.id).toBeGreaterThanOrEqual(10);
      // The desktop drawing is another, wider one.
      const lg = chartSvgs(html, widget.index).find((s) => s.classes.includes('eb-chart--lg'));
      const lgBox = widgetBoxes(
        desktop.widgets.find((w) => w.index === widget.index) ?? widget,
        desktop.theme,
      );
      expect(lg?.viewBox[2]).toBe(Math.round(lgBox.body.w));
      expect(lg?.viewBox[2]).not.toBe(304);
    }
  });

  it('shows only the drawing of the breakpoint in effect', () => {
    // The narrowest breakpoint is unconditional; every wider one swaps its own drawing in.
    expect(css).toContain('.eb-grid .eb-chart{display:none}.eb-grid .eb-chart--xxs{display:block}');
    expect(css).toMatch(
      /@media \(min-width:481px\)\{[^\n]*\.eb-grid \.eb-chart\{display:none\}\.eb-grid \.eb-chart--xs\{display:block\}/,
    );
  });

  it('lays a narrow chart out for its width: fewer ticks, legend below, short category labels', () => {
    const revenue = phone.widgets.find((w) => w.id === 'revenue');
    const svg = (bp: string) =>
      chartSvgs(html, revenue?.index ?? -1).find((s) => s.classes.includes(`eb-chart--${bp}`))?.body ?? '';
    const ticks = (s: string) => [...s.matchAll(/text-anchor="end"(?! transform)/g)].length;
    const textY = (s: string, label: string) =>
      Number(new RegExp(`<text x="[\\d.]+" y="([\\d.]+)"[^>]*>${label}</text>`).exec(s)?.[1]);
    const axisY = (s: string) =>
      Number(/<text x="[\d.]+" y="([\d.]+)"[^>]*text-anchor="middle"[^>]*>Jan<\/text>/.exec(s)?.[1]);
    expect(ticks(svg('xxs'))).toBeLessThan(ticks(svg('lg')));
    // The legend is above the plot on a desktop, below the category axis on a phone.
    expect(textY(svg('lg'), 'revenue')).toBeLessThan(axisY(svg('lg')));
    expect(textY(svg('xxs'), 'revenue')).toBeGreaterThan(axisY(svg('xxs')));
  });

  it('cuts long category labels with an ellipsis rather than shrinking them', async () => {
    const input = {
      config: {
        widgets: [{ id: 'c', type: 'CHART', position: { x: 0, y: 0, w: 12, h: 2 }, config: { reportId: 1 } }],
      },
      reportSnapshots: [
        {
          reportId: 1,
          spec: JSON.stringify({
            type: 'bar',
            data: [
              { label: 'Northern Europe and Scandinavia', value: 3 },
              { label: 'Southern Europe', value: 2 },
            ],
          }),
        },
      ],
    };
    const svg = new TextDecoder().decode((await renderDashboard(input, 'svg', { width: 360 })).bytes);
    // Each of the two categories has half the phone's width: its label is cut to that, level.
    expect(svg).toMatch(/>Northern Europe[^<]*…<\/text>/);
    expect(svg).not.toContain('Scandinavia');
    expect(svg).toContain('>Southern Europe</text>');
    expect(svg).not.toContain('rotate(');
    expect(Math.min(...fontSizes(svg))).toBeGreaterThanOrEqual(10);
  });

  it('renders PNG/PDF at width=360 with the phone layout and no text under 10 px', async () => {
    const out = await renderDashboard(businessReview, 'svg', { width: 360 });
    expect(out.layout.breakpoint).toBe('xxs');
    const svg = new TextDecoder().decode(out.bytes);
    expect(svg).toMatch(/^<svg [^>]*width="360"/);
    expect(Math.min(...fontSizes(svg))).toBeGreaterThanOrEqual(10);
  });
});
