import { describe, expect, it } from 'vitest';
import type { PublishedDashboardRecord } from '../../src/dashboards/dashboards.repository';
import { dashboardRenderer, type RenderScope } from '../../src/notifications/delivery';

const dashboard = {
  title: 'Sales',
  config: {
    title: 'Sales',
    widgets: [
      {
        id: 'c',
        type: 'CHART',
        position: { x: 0, y: 0, w: 12, h: 6 },
        config: { reportId: 7, title: 'By region' },
      },
    ],
  },
  reportSnapshots: [
    {
      id: 1,
      reportId: 7,
      versionNumber: 1,
      name: 'By region',
      title: 'By region',
      description: '',
      sqlQuery: '',
      meta: {},
      spec: JSON.stringify({
        type: 'bar',
        x: 'region',
        y: 'revenue',
        data: [
          { region: 'EU', revenue: 10 },
          { region: 'US', revenue: 20 },
        ],
      }),
    },
  ],
} as unknown as PublishedDashboardRecord;

const NO_CONTROLS = { filters: [], timeGrains: [] };

const scope = (value: string | null): RenderScope => ({
  key: String(value),
  identity: { groups: [], userAttributes: {}, securityContext: {} },
  groups: null,
  userAttributes: value === null ? null : [{ name: 'region', value }],
  securityContext: null,
});

const png = async (s: RenderScope) =>
  (
    await dashboardRenderer.render({
      dashboard,
      format: 'png',
      controls: NO_CONTROLS,
      dataTime: null,
      scope: s,
    })
  ).bytes;

describe('notification renders under the recipient scope', () => {
  it('draws the rows each embed recipient may see: same scope, same image; other rows, other image', async () => {
    const [eu, euAgain, us, everyone] = [
      await png(scope('EU')),
      await png(scope('EU')),
      await png(scope('US')),
      await png(scope(null)),
    ];
    expect(Buffer.from(eu).equals(Buffer.from(euAgain))).toBe(true);
    expect(Buffer.from(eu).equals(Buffer.from(us))).toBe(false);
    expect(Buffer.from(eu).equals(Buffer.from(everyone))).toBe(false);
  });
});
