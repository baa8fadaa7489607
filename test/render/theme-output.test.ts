import { describe, expect, it } from 'vitest';
import { toCss } from '../../src/render/color';
import { dashboardFragment } from '../../src/render/html';
import { renderDashboard } from '../../src/render/render';
import { DEFAULT_FONT_STACK, resolveTheme, safeFontList } from '../../src/render/theme';
import { gridConfig } from './helpers';

const widgets = [
  { id: 't', type: 'TEXT', title: 'Note', text: 'hello', position: { x: 0, y: 0, w: 6, h: 1 } },
  {
    id: 'c',
    type: 'CHART',
    title: 'Revenue',
    reportId: 1,
    position: { x: 6, y: 0, w: 6, h: 2 },
  },
];
const reportSnapshots = [
  { reportId: 1, spec: JSON.stringify({ type: 'bar', x: 'm', y: 'v', data: [{ m: 'Jan', v: 1 }] }) },
];

// Stored values a theme may hold from before the write-time grammar, or from a hand edit.
const hostileFonts = [
  'Inter", sans-serif',
  "Inter', serif",
  '"Inter',
  'Inter; } body { display: none } .x {',
  'Inter\\"',
  'x;}</style><script>alert(1)</script>',
  'Inter /* comment',
];

/** Every rule of a stylesheet keeps its braces and its quotes balanced. */
function expectWellFormedCss(css: string) {
  let depth = 0;
  for (const ch of css) {
    if (ch === '{') depth++;
    if (ch === '}') depth--;
    expect(depth).toBeGreaterThanOrEqual(0);
  }
  expect(depth).toBe(0);
  for (const line of css.split('\n')) {
    expect((line.match(/"/g) ?? []).length % 2).toBe(0);
    expect(line).not.toMatch(/'|\\|\/\*|<|>/);
  }
}

describe('theme values on output (defence in depth)', () => {
  it.each(hostileFonts)(
    'drops the font list %j: the CSS keeps its rules, the default stack is used',
    (bad) => {
      const theme = { fontFamily: bad, widgets: { title: { fontFamily: bad }, text: { fontFamily: bad } } };
      const { css, html } = dashboardFragment({
        config: gridConfig(widgets, {}, { theme }),
        reportSnapshots,
      });
      expectWellFormedCss(css);
      expect(css).toContain(`body{background:#f4f5f7;font-family:${DEFAULT_FONT_STACK};`);
      expect(css).not.toContain('display: none');
      expect(html).not.toContain('<script');
      expect(resolveTheme(theme).fontFamily).toBe(DEFAULT_FONT_STACK);
    },
  );

  it('keeps good font lists, quoting names the same way every time', () => {
    expect(safeFontList("Inter, 'Helvetica Neue', -apple-system, sans-serif")).toBe(
      'Inter, "Helvetica Neue", -apple-system, sans-serif',
    );
    expect(safeFontList('Noto   Sans')).toBe('Noto Sans');
    for (const bad of hostileFonts) expect(safeFontList(bad)).toBeNull();
    const { css } = dashboardFragment({
      config: gridConfig(widgets, {}, { theme: { fontFamily: '"Helvetica Neue", Arial' } }),
      reportSnapshots,
    });
    expect(css).toContain(`font-family:"Helvetica Neue", Arial, ${DEFAULT_FONT_STACK}`);
    expectWellFormedCss(css);
  });

  it('writes colours from clamped numbers only, whatever the Rgba holds', () => {
    expect(toCss({ r: 300, g: -5, b: Number.NaN, a: 1 })).toBe('#ff0000');
    expect(toCss({ r: 1.4, g: 2, b: 3, a: 0.12345 })).toBe('rgba(1,2,3,0.123)');
    expect(toCss({ r: 1, g: 2, b: 3, a: Number.POSITIVE_INFINITY })).toBe('#010203');
  });

  it('keeps hostile theme values out of the SVG a PNG or PDF is drawn from', async () => {
    const theme = {
      fontFamily: hostileFonts[0],
      primaryColor: 'red" onload="alert(1)',
      backgroundColor: '#fff"/><script>',
      widgets: { border: { style: 'solid" onclick="x', width: '2px', color: 'url(javascript:1)' } },
    };
    const { bytes } = await renderDashboard(
      { config: gridConfig(widgets, {}, { theme }), reportSnapshots },
      'svg',
    );
    const svg = new TextDecoder().decode(bytes);
    expect(svg).not.toMatch(/onload|onclick|<script|javascript:/);
    expect(svg).toContain('font-family="Arimo"');
    const { css, html } = dashboardFragment({ config: gridConfig(widgets, {}, { theme }), reportSnapshots });
    expectWellFormedCss(css);
    expect(`${css}${html}`).not.toMatch(/onload|onclick|javascript:/);
  });
});
