import { describe, expect, it } from 'vitest';
import { demoDashboard, demoModel, demoReports } from '../../scripts/demo-data.mjs';
import { sqlite } from '../../src/semantic/dialects/sqlite';
import { compileModel } from '../../src/semantic/model/compile';
import type { CompiledModel } from '../../src/semantic/model/model.types';
import { findMember } from '../../src/semantic/query/members';
import { normalizeQuery } from '../../src/semantic/query/normalize';
import { compileQuery } from '../../src/semantic/query/plan';
import type { CubeQuery } from '../../src/semantic/query/query.types';

type Box = { x: number; y: number; w: number; h: number };
type Widget = {
  id: string;
  type: string;
  position: Box;
  config: Record<string, unknown>;
  responsiveLayouts: Record<string, Box>;
};

function shop(): CompiledModel {
  const result = compileModel([{ path: 'model/cubes/shop.yml', content: demoModel() }]);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.model;
}

const reports = demoReports();
const ids = Object.fromEntries(reports.map((r, i) => [r.key, 100 + i]));
const widgets = (demoDashboard(ids) as { widgets: Widget[] }).widgets;

describe("the seed's demo dashboard", () => {
  it('has eight charts of six kinds, each a query the demo model plans', () => {
    const model = shop();
    expect(reports).toHaveLength(8);
    expect(new Set(reports.map((r) => r.spec.type))).toEqual(
      new Set(['kpi', 'area', 'donut', 'bar', 'table']),
    );
    for (const report of reports) {
      const normalized = normalizeQuery(model, report.query as CubeQuery, { now: new Date() });
      expect(compileQuery(model, normalized, sqlite).sql, report.key).toContain('SELECT');
      // The chart's fields are keys of the query's rows.
      const keys = [
        ...((report.query.measures as string[]) ?? []),
        ...((report.query.dimensions as string[]) ?? []),
        ...((report.query.timeDimensions as { dimension: string; granularity: string }[]) ?? []).map(
          (t) => `${t.dimension}.${t.granularity}`,
        ),
      ];
      for (const field of [report.spec.x, report.spec.y].flat().filter(Boolean)) {
        expect(keys, `${report.key}: ${String(field)}`).toContain(field);
      }
    }
  });

  it('binds its controls to members of the model and its charts to the reports', () => {
    const model = shop();
    const filter = widgets.find((w) => w.type === 'FILTER');
    const grain = widgets.find((w) => w.type === 'TIME_GRAIN');
    expect(filter?.config.member).toBe('customers.country');
    expect(grain?.config.member).toBe('orders.created_at');
    for (const member of [filter?.config.member, grain?.config.member]) {
      expect(() => findMember(model, member)).not.toThrow();
    }
    const charts = widgets.filter((w) => w.type === 'CHART');
    expect(charts.map((w) => w.config.reportId).sort()).toEqual(Object.values(ids).sort());
  });

  it('lays every widget out without overlap at every breakpoint', () => {
    const layouts: [string, number, (w: Widget) => Box][] = [
      ['position', 12, (w) => w.position],
      ...(
        [
          ['lg', 12],
          ['md', 10],
          ['sm', 6],
          ['xs', 4],
          ['xxs', 2],
        ] as const
      ).map(([bp, cols]): [string, number, (w: Widget) => Box] => [
        bp,
        cols,
        (w) => w.responsiveLayouts[bp] as Box,
      ]),
    ];
    for (const [name, cols, boxOf] of layouts) {
      const taken = new Set<string>();
      for (const widget of widgets) {
        const box = boxOf(widget);
        expect(box, `${name} ${widget.id}`).toBeDefined();
        expect(box.x + box.w, `${name} ${widget.id}`).toBeLessThanOrEqual(cols);
        for (let x = box.x; x < box.x + box.w; x++) {
          for (let y = box.y; y < box.y + box.h; y++) {
            expect(taken.has(`${x},${y}`), `${name} ${widget.id} at ${x},${y}`).toBe(false);
            taken.add(`${x},${y}`);
          }
        }
      }
    }
  });
});
