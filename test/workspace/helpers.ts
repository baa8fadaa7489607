import { expect } from 'vitest';
import type { SeededAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { dbOf, shardCount } from '../helpers/shards';

export const base = (deploymentId: number) => `/api/v1/deployments/${deploymentId}`;

type Auth = { bearer: string };

async function created(res: { status: number; body: any }): Promise<any> {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

export async function folder(auth: Auth, deploymentId: number, body: Record<string, unknown>) {
  return created(await api('POST', `${base(deploymentId)}/folders`, { auth, body }));
}

export async function workbook(auth: Auth, deploymentId: number, body: Record<string, unknown> = {}) {
  return created(await api('POST', `${base(deploymentId)}/workbooks`, { auth, body }));
}

export async function report(auth: Auth, deploymentId: number, body: Record<string, unknown>) {
  return created(await api('POST', `${base(deploymentId)}/reports`, { auth, body }));
}

/** A valid dashboard draft with `widgets` widgets. */
export function draft(widgets = 2, extra: Record<string, unknown> = {}) {
  return {
    kind: 'CLASSIC',
    title: 'Revenue',
    widgets: Array.from({ length: widgets }, (_, i) => ({
      id: `w${i}`,
      type: i % 2 === 0 ? 'CHART' : 'TEXT',
      position: { x: (i % 4) * 3, y: Math.floor(i / 4) * 2, w: 3, h: 2 },
      config: i % 2 === 0 ? { title: `Chart ${i}` } : { text: `Note ${i}` },
    })),
    ...extra,
  };
}

/** Stored row of a workspace item, straight from D1 (the shard its id names). */
export async function itemRow(id: number) {
  return dbOf(id).prepare('SELECT * FROM workspace_items WHERE id = ?').bind(id).first<Record<string, any>>();
}

/** The rows `sql` selects, where its bound ids say they are stored (on every shard when none). */
export async function count(sql: string, ...params: unknown[]): Promise<number> {
  return shardCount(`SELECT count(*) AS n FROM (${sql})`, ...params);
}

export function roundTrips(res: { headers: Headers }): number {
  return Number(res.headers.get('x-d1-round-trips'));
}

export function queries(res: { headers: Headers }): number {
  return Number(res.headers.get('x-d1-queries'));
}

export type { SeededAccount };
