import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { dashboardFragment } from '../../src/render/html';
import { computeLayout } from '../../src/render/layout';
import { renderDashboard } from '../../src/render/render';
import { buildScene } from '../../src/render/scene';
import type { SceneNode } from '../../src/render/scene-nodes';
import { type SeededAccount, seedWorld } from '../helpers/harness';
import { api } from '../helpers/http';
import { gridConfig, pngSize } from './helpers';
import { fetchBytes } from './seed';

const pos = (x: number, y: number, w: number, h: number) => ({ x, y, w, h });

/** One widget of each of Cube's layout types, on a 100 px grid. */
const config = gridConfig([
  { id: 'f', type: 'FIELD', position: pos(0, 0, 4, 1), config: { label: 'Region', value: 'EMEA' } },
  { id: 's', type: 'SPACER', position: pos(4, 0, 4, 1), config: { title: 'Never shown' } },
  { id: 'd', type: 'DIVIDER', position: pos(0, 1, 12, 1) },
  { id: 'v', type: 'DIVIDER', position: pos(0, 4, 1, 2) },
  { id: 'c', type: 'CONTAINER', position: pos(0, 2, 6, 2), config: { title: 'Sales box' } },
  { id: 'p', type: 'PARENT', position: pos(6, 2, 6, 2), config: { label: 'Parent group' } },
]);

const byId = (id: string) => {
  const layout = computeLayout({ config }, { width: 1350 });
  const widget = layout.widgets.find((w) => w.id === id);
  if (!widget) throw new Error(`no widget ${id}`);
  return { widget };
};

const nodesOf = (id: string): SceneNode[] => {
  const layout = computeLayout({ config }, { width: 1350 });
  const scene = buildScene(layout);
  const ordered = [...layout.widgets].sort((a, b) => a.rect.y - b.rect.y || a.rect.x - b.rect.x);
  const index = ordered.findIndex((w) => w.id === id);
  return scene.blocks[(layout.header ? 1 : 0) + index]?.nodes ?? [];
};

const texts = (nodes: SceneNode[]) => nodes.flatMap((n) => (n.kind === 'text' ? [n.text] : []));

describe('Cube’s layout widget types in the scene (PNG and PDF)', () => {
  it('reads each type’s content', () => {
    expect(byId('f').widget.content).toEqual({ kind: 'field', label: 'Region', value: 'EMEA' });
    expect(byId('s').widget).toMatchObject({ content: { kind: 'spacer' }, title: null });
    expect(byId('d').widget).toMatchObject({ content: { kind: 'divider' }, title: null });
    expect(byId('c').widget).toMatchObject({ content: { kind: 'frame' }, title: 'Sales box' });
    expect(byId('p').widget).toMatchObject({ content: { kind: 'frame' }, title: 'Parent group' });
  });

  it('draws nothing for a spacer', () => {
    expect(nodesOf('s')).toEqual([]);
  });

  it('draws a divider as one rule across its box, or down a box taller than wide', () => {
    const across = nodesOf('d');
    const { rect } = byId('d').widget;
    expect(across).toHaveLength(1);
    expect(across[0]).toMatchObject({ kind: 'path' });
    const mid = rect.y + rect.h / 2;
    expect((across[0] as { d: string }).d).toBe(`M${rect.x} ${mid}L${rect.x + rect.w} ${mid}`);
    const down = nodesOf('v');
    const v = byId('v').widget.rect;
    expect((down[0] as { d: string }).d).toBe(`M${v.x + v.w / 2} ${v.y}L${v.x + v.w / 2} ${v.y + v.h}`);
  });

  it('draws a container or parent as a frame with its title, a field as its label and value', () => {
    for (const [id, title] of [
      ['c', 'Sales box'],
      ['p', 'Parent group'],
    ] as const) {
      const nodes = nodesOf(id);
      expect(nodes[0]).toMatchObject({ kind: 'rect', stroke: expect.anything() });
      expect(texts(nodes)).toEqual([title]);
    }
    expect(texts(nodesOf('f'))).toEqual(['Region', 'EMEA']);
    const value = nodesOf('f').find((n) => n.kind === 'text' && n.text === 'EMEA');
    expect(value).toMatchObject({ bold: true });
  });

  it('shows a field’s value from the render’s current filters before its config', () => {
    const layout = computeLayout({ config, filters: { f: 'APAC' } }, { width: 1350 });
    expect(layout.widgets.find((w) => w.id === 'f')?.content).toMatchObject({ value: 'APAC' });
  });

  it('renders them to a PNG, a PDF and an SVG', async () => {
    const png = await renderDashboard({ config }, 'png');
    expect(pngSize(png.bytes).width).toBe(1280);
    const pdf = await PDFDocument.load((await renderDashboard({ config }, 'pdf')).bytes);
    expect(pdf.getPageCount()).toBe(1);
    const svg = new TextDecoder().decode((await renderDashboard({ config }, 'svg')).bytes);
    expect(svg).toContain('EMEA');
    expect(svg).toContain('Sales box');
    expect(svg).not.toContain('Never shown');
  });
});

describe('Cube’s layout widget types in the viewer’s HTML', () => {
  const { html, css } = dashboardFragment({ config });
  const section = (id: string) => {
    const match = html.match(new RegExp(`<section [^>]*data-widget-id="${id}"[^>]*>.*?</section>`));
    return match?.[0] ?? '';
  };

  it('marks each type and draws its content', () => {
    expect(section('f')).toContain('eb-widget--field');
    expect(section('f')).toContain(
      '<span class="eb-field-label">Region</span><span class="eb-field-value">EMEA</span>',
    );
    expect(section('s')).toContain('eb-widget--spacer');
    expect(section('s')).toContain('<div class="eb-widget-body"></div>');
    expect(section('s')).not.toContain('Never shown');
    expect(section('d')).toContain('<hr class="eb-divider">');
    expect(section('c')).toContain('<h2 class="eb-widget-title">Sales box</h2>');
    expect(section('p')).toContain('<h2 class="eb-widget-title">Parent group</h2>');
    expect(section('p')).toContain('data-widget-type="PARENT"');
  });

  it('styles the divider from the theme', () => {
    expect(css).toContain('.eb-divider{border-color:');
  });
});

describe('through the API', () => {
  let acme: SeededAccount;
  beforeAll(async () => {
    ({ acme } = await seedWorld());
  });

  it('saves, publishes and renders a dashboard of the new types (widgets without ids get ids)', async () => {
    const d = acme.deployments[0];
    const base = `/api/v1/deployments/${d}`;
    const wb = await api('POST', `${base}/workbooks`, { auth: acme.admin, body: { name: 'Layout types' } });
    expect(wb.status).toBe(200);
    const widgets = (config?.widgets ?? []).map((w) => {
      const { id: _id, ...rest } = w as Record<string, unknown>;
      return rest;
    });
    const put = await api('PUT', `${base}/workbooks/${wb.body.id}/dashboard`, {
      auth: acme.admin,
      body: { dashboardDraft: { ...config, widgets } },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.dashboardDraft.widgets.map((w: { id: string }) => w.id)).toEqual([
      'field-1',
      'spacer-1',
      'divider-1',
      'divider-2',
      'container-1',
      'parent-1',
    ]);
    const published = await api('POST', `${base}/workbooks/${wb.body.id}/publish`, {
      auth: acme.admin,
      body: { workbookId: wb.body.id },
    });
    expect(published.status).toBe(200);
    for (const format of ['png', 'pdf']) {
      const res = await fetchBytes(
        `${base}/workbooks/${wb.body.id}/dashboard/render?format=${format}`,
        acme.admin,
      );
      expect(res.status).toBe(200);
      expect(res.bytes.byteLength).toBeGreaterThan(100);
    }
  });
});
