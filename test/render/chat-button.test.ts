import { describe, expect, it } from 'vitest';
import { DASHBOARD_BASE_CSS, dashboardFragment } from '../../src/render/html';
import { businessReview } from './helpers';

const BUTTON = '<button class="eb-chat" type="button" data-eb-chat>Ask about this dashboard</button>';

describe('the chat button', () => {
  it('is drawn only when showDashboardChat is true', () => {
    for (const settings of [undefined, null, {}, { showDashboardChat: null }, { showDashboardChat: false }]) {
      expect(dashboardFragment({ ...businessReview, settings }).html).not.toContain('eb-chat');
    }
    expect(dashboardFragment({ ...businessReview, settings: { showDashboardChat: true } }).html).toContain(
      BUTTON,
    );
  });

  it('takes its own place in the header’s toolbar, beside the avatar, never over the widgets', () => {
    const { html } = dashboardFragment({
      ...businessReview,
      viewer: { displayName: 'Ada Lovelace' },
      settings: { showDashboardChat: true },
    });
    const header = /<header class="eb-header">(.*?)<\/header>/.exec(html)?.[1] ?? '';
    expect(header).toMatch(
      /<div class="eb-toolbar"><button class="eb-chat"[^>]*>[^<]*<\/button><div class="eb-viewer"/,
    );
    // Nothing of it after the header: the grid is the rest of the page.
    expect(html.split('</header>')[1]).not.toContain('eb-chat');
    // In the flow of the header row, not positioned over the page.
    const rule = /\.eb-chat\{[^}]*\}/.exec(DASHBOARD_BASE_CSS)?.[0] ?? '';
    expect(rule).toContain('.eb-chat{');
    expect(rule).not.toMatch(/position:(fixed|absolute|sticky)/);
    expect(DASHBOARD_BASE_CSS).toMatch(/\.eb-header\{display:flex;flex-wrap:wrap;/);
  });

  it('has the toolbar without a viewer too', () => {
    const { html } = dashboardFragment({ ...businessReview, settings: { showDashboardChat: true } });
    expect(html).toContain(`<div class="eb-toolbar">${BUTTON}</div></header>`);
  });
});
