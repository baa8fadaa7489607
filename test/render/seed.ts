import { expect } from 'vitest';
import type { SeededAccount } from '../helpers/harness';
import { type Auth, api, workerFetch } from '../helpers/http';
import { businessReview } from './helpers';

type Json = Record<string, any>;

/** A response whose body is read as bytes (images), so nothing is decoded as text. */
export async function fetchBytes(path: string, auth: Auth = null, headers: Record<string, string> = {}) {
  const authorization =
    auth && 'bearer' in auth
      ? `Bearer ${auth.bearer}`
      : auth && 'apiKey' in auth
        ? `Api-Key ${auth.apiKey}`
        : auth && 'session' in auth
          ? `Session ${auth.session}`
          : auth && 'raw' in auth
            ? auth.raw
            : undefined;
  const res = await workerFetch(`http://edgeboard.test${path}`, {
    headers: { ...(authorization ? { authorization } : {}), ...headers },
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  const body = type.includes('json') ? JSON.parse(new TextDecoder().decode(bytes)) : null;
  return { status: res.status, headers: res.headers, bytes, body };
}

export interface SeededDashboard {
  deploymentId: number;
  workbookId: number;
  publicId: string;
  /** Fixture reportId → the id the report got. */
  reportIds: Map<number, number>;
  config: Json;
}

/**
 * The 20-widget sample as a customer would build it over HTTP: a workbook, its reports (the
 * fixture's snapshots), the draft pointing at them, then a publish.
 */
export async function seedBusinessReview(
  account: SeededAccount,
  options: { deploymentId?: number; title?: string; configPatch?: Json } = {},
): Promise<SeededDashboard> {
  const deploymentId = options.deploymentId ?? account.deployments[0];
  const base = `/api/v1/deployments/${deploymentId}`;
  const auth = account.admin;
  const wb = await api('POST', `${base}/workbooks`, { auth, body: { name: 'Business review' } });
  expect(wb.status, JSON.stringify(wb.body)).toBe(200);
  const reportIds = new Map<number, number>();
  for (const s of businessReview.reportSnapshots ?? []) {
    const r = await api('POST', `${base}/reports`, {
      auth,
      body: { name: s.name, title: s.title, spec: s.spec, workbookId: wb.body.id },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    reportIds.set(s.reportId, r.body.id);
  }
  const config = structuredClone(businessReview.config) as Json;
  for (const w of config.widgets) {
    if (w.config?.reportId) w.config.reportId = reportIds.get(w.config.reportId);
  }
  Object.assign(config, options.configPatch ?? {});
  const put = await api('PUT', `${base}/workbooks/${wb.body.id}/dashboard`, {
    auth,
    body: { dashboardDraft: config },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const pub = await api('POST', `${base}/workbooks/${wb.body.id}/publish`, {
    auth,
    body: { title: options.title ?? 'Business review' },
  });
  expect(pub.status, JSON.stringify(pub.body)).toBe(200);
  return { deploymentId, workbookId: wb.body.id, publicId: pub.body.publicId, reportIds, config };
}
