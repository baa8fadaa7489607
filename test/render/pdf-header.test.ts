import { describe, expect, it } from 'vitest';
import { computeLayout } from '../../src/render/layout';
import { renderDashboard } from '../../src/render/render';
import type { RenderInput } from '../../src/render/render.types';
import { pdfPagesText } from '../helpers/pdf-text';
import { businessReview, gridConfig } from './helpers';

const CONTEXT = 'Country: FR · Time grain: Week · Status: paid · Data as of 2026-11-25 21:40 UTC';

/** The sample with a country filter, a weekly grain, a locked filter no control shows and a data time. */
const input: RenderInput = {
  ...businessReview,
  filters: [
    { member: 'Orders.country', values: ['FR'], widgetId: 'country' },
    { member: 'orders.status', values: ['paid'], locked: true },
  ],
  timeGrains: { grain: 'week' },
  dataTime: '2026-11-25T21:40:59.999Z',
};

const svgText = async (i: RenderInput, width?: number) =>
  new TextDecoder().decode((await renderDashboard(i, 'svg', { width })).bytes);

describe('PDF header and footer', () => {
  it('puts the title, the filters and time grain in effect and the data time on every page', async () => {
    const pages = await pdfPagesText((await renderDashboard(input, 'pdf')).bytes);
    expect(pages.length).toBe(2);
    pages.forEach((page, i) => {
      const lines = page.split('\n');
      expect(lines, `page ${i + 1}`).toContain('Business review');
      expect(lines, `page ${i + 1}`).toContain(CONTEXT);
      expect(lines, `page ${i + 1}`).toContain(`Page ${i + 1} of 2`);
    });
    // The controls still show their values; widgets without a value are not "applied".
    expect(pages[0]).not.toContain('Region:');
    expect(pages[0]).not.toContain('Cohort grain:');
  });

  it('leaves out what is not given: no data time, no filters', async () => {
    const plain = { ...businessReview, dataTime: 'yesterday' };
    const pages = await pdfPagesText((await renderDashboard(plain, 'pdf')).bytes);
    expect(pages.join('\n')).not.toContain('Data as of');
    // The widgets' defaults are in effect.
    expect(pages[1]?.split('\n')).toContain('Country: France, Germany · Time grain: Month');
    const bare = {
      config: gridConfig(
        Array.from({ length: 6 }, (_, i) => ({
          id: `t${i}`,
          type: 'TEXT',
          position: { x: 0, y: i, w: 12, h: 1 },
          config: { text: `Text ${i}` },
        })),
        { rowHeight: 400 },
      ),
    };
    const barePages = await pdfPagesText((await renderDashboard(bare, 'pdf')).bytes);
    expect(barePages.length).toBe(3);
    expect(barePages.map((p) => p.split('\n').filter((l) => l.startsWith('Page ')))).toEqual([
      ['Page 1 of 3'],
      ['Page 2 of 3'],
      ['Page 3 of 3'],
    ]);
  });

  it('wraps the line on a phone-width PDF and still numbers every page', async () => {
    const pages = await pdfPagesText((await renderDashboard(input, 'pdf', { width: 360 })).bytes);
    expect(pages.length).toBeGreaterThan(2);
    // The first page's header wraps it; later pages repeat it on one line cut to the width.
    expect(pages[0]).toContain('Country: FR · Time grain: Week');
    expect(pages[0]).toContain('21:40 UTC');
    pages.forEach((page, i) => {
      expect(page).toContain('Business review');
      expect(page).toContain(`Page ${i + 1} of ${pages.length}`);
    });
    expect(pages[1]).toMatch(/Country: FR · Time grain: Week.*…/);
  });
});

describe('the line of controls', () => {
  it('reads both forms of filters and names values no widget shows by their member', () => {
    const layout = computeLayout({
      config: gridConfig([
        {
          id: 'where',
          type: 'FILTER',
          position: { x: 0, y: 0, w: 6, h: 1 },
          config: { member: 'orders.country' },
        },
      ]),
      filters: { where: ['DE', 'AT'], 'orders.channel': 'web' },
      timeGrains: [
        { member: 'orders.created_at', grain: 'day' },
        { member: 'users.signed_up_at', value: 'week' },
      ],
    });
    expect(layout.header?.context).toBe(
      'Country: DE, AT · Channel: web · Time grain (created at): Day · Time grain (signed up at): Week',
    );
  });
});

describe('PNG header', () => {
  it('shows the title and the filters line, no page numbers', async () => {
    const svg = await svgText(input);
    expect(svg).toContain('>Business review</text>');
    expect(svg).toContain(`>${CONTEXT}</text>`);
    expect(svg).not.toContain('Page 1');
    const out = await renderDashboard(input, 'png');
    // The line takes its own room above the grid: 24 + the title (20) + the description (13 + 10)
    // + one 18 px line.
    expect(out.layout.header?.height).toBe(85);
    expect(out.layout.header?.contextLines).toEqual([CONTEXT]);
    expect(out.layout.widgets[0]?.rect.y).toBe(85 + 16);
  });
});
