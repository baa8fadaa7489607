import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { base, draft, folder, report, workbook } from './helpers';

/**
 * Every workspace and dashboard route: credentials (401), and isolation — another account's
 * deployment, another account's item, and an item of the caller's other deployment are all 404,
 * and none of those requests changes anything. Members may do everything (no admin-only route).
 */
let acme: SeededAccount;
let other: SeededAccount;
const mine = { folder: 0, workbook: 0, report: 0 };
const theirs = { folder: 0, workbook: 0, report: 0 };
const sibling = { folder: 0, workbook: 0, report: 0 };

async function seedItems(account: SeededAccount, deploymentId: number, into: typeof mine) {
  into.folder = (await folder(account.member, deploymentId, { name: 'F' })).id;
  into.workbook = (await workbook(account.member, deploymentId, { name: 'W' })).id;
  into.report = (await report(account.member, deploymentId, { name: 'R', workbookId: into.workbook })).id;
  await api('PUT', `${base(deploymentId)}/workbooks/${into.workbook}/dashboard`, {
    auth: account.member,
    body: { dashboardDraft: draft(1) },
  });
}

beforeAll(async () => {
  acme = await seedAccount();
  other = await seedAccount();
  await seedItems(acme, acme.deployments[0], mine);
  await seedItems(other, other.deployments[0], theirs);
  await seedItems(acme, acme.deployments[1], sibling);
});

type Kind = keyof typeof mine;
interface Route {
  method: string;
  /** `{id}` is replaced by an item of `kind`. */
  path: string;
  kind?: Kind;
  body?: (ids: typeof mine) => unknown;
  /** Status of the happy path for a member. */
  ok: number;
}

const ROUTES: Route[] = [
  { method: 'GET', path: '/workspace', ok: 200 },
  {
    method: 'POST',
    path: '/workspace/move',
    body: (ids) => ({ id: ids.report, folderId: ids.folder }),
    ok: 200,
  },
  { method: 'POST', path: '/folders', body: () => ({ name: 'New' }), ok: 200 },
  { method: 'GET', path: '/folders/{id}', kind: 'folder', ok: 200 },
  { method: 'PUT', path: '/folders/{id}', kind: 'folder', body: () => ({ name: 'Renamed' }), ok: 200 },
  { method: 'POST', path: '/workbooks', body: () => ({ name: 'New' }), ok: 200 },
  { method: 'GET', path: '/workbooks/{id}', kind: 'workbook', ok: 200 },
  { method: 'PUT', path: '/workbooks/{id}', kind: 'workbook', body: () => ({ name: 'Renamed' }), ok: 200 },
  { method: 'PUT', path: '/workbooks/{id}/favorite', kind: 'workbook', ok: 200 },
  { method: 'DELETE', path: '/workbooks/{id}/favorite', kind: 'workbook', ok: 200 },
  { method: 'GET', path: '/workbooks/{id}/dashboard', kind: 'workbook', ok: 200 },
  {
    method: 'PUT',
    path: '/workbooks/{id}/dashboard',
    kind: 'workbook',
    body: () => ({ dashboardDraft: draft(2) }),
    ok: 200,
  },
  { method: 'POST', path: '/workbooks/{id}/publish', kind: 'workbook', ok: 200 },
  { method: 'GET', path: '/workbooks/{id}/dashboard/versions', kind: 'workbook', ok: 200 },
  { method: 'POST', path: '/reports', body: () => ({ name: 'New' }), ok: 200 },
  { method: 'GET', path: '/reports/{id}', kind: 'report', ok: 200 },
  { method: 'PUT', path: '/reports/{id}', kind: 'report', body: () => ({ title: 'Changed' }), ok: 200 },
  // Deletes last: they remove the items the other routes use.
  { method: 'DELETE', path: '/reports/{id}', kind: 'report', ok: 200 },
  { method: 'DELETE', path: '/workbooks/{id}', kind: 'workbook', ok: 200 },
  { method: 'DELETE', path: '/folders/{id}', kind: 'folder', ok: 200 },
];

const url = (deploymentId: number, route: Route, ids: typeof mine) =>
  `${base(deploymentId)}${route.kind ? route.path.replace('{id}', String(ids[route.kind])) : route.path}`;

/** Everything the workspace tables hold, to prove a refused request changed nothing. */
async function fingerprint(): Promise<string> {
  const tables = ['workspace_items', 'workbooks', 'reports', 'workspace_favorites', 'workspace_views'];
  const dumps = await Promise.all(
    tables.map((t) => env.DB.prepare(`SELECT * FROM ${t} ORDER BY rowid`).all()),
  );
  const published = await env.DB.prepare('SELECT * FROM published_dashboards ORDER BY id').all();
  return JSON.stringify([...dumps.map((d) => d.results), published.results]);
}

describe('workspace and dashboard routes', () => {
  for (const route of ROUTES) {
    const label = `${route.method} ${route.path}`;

    it(`${label}: 401 without a credential, with an Api-Key, with an unknown token`, async () => {
      const path = url(acme.deployments[0], route, mine);
      const body = route.body?.(mine);
      // A valid API key is accepted on these routes (test/foundation/api-key-credentials.test.ts); an unknown one is a 401.
      for (const auth of [
        null,
        { apiKey: 'eb_ak_unknown' },
        { bearer: 'eb_at_unknown' },
        { raw: 'Bearer' },
      ]) {
        expectError(await api(route.method, path, { auth, body }), 401, 'UNAUTHORIZED');
      }
    });

    it(`${label}: 404 for another account's deployment or item, or an item of the other deployment`, async () => {
      const before = await fingerprint();
      const attempts: [number, typeof mine][] = [
        // The other account's own deployment and items, with acme's credential.
        [other.deployments[0], theirs],
        // acme's deployment with the other account's item ids.
        [acme.deployments[0], theirs],
        // acme's second deployment with items of its first.
        [acme.deployments[1], mine],
      ];
      for (const [deploymentId, ids] of attempts) {
        // Routes that name no item (list, create) only have a deployment to get wrong.
        const namesItems = Boolean(route.kind) || route.path === '/workspace/move';
        if (!namesItems && deploymentId !== other.deployments[0]) continue;
        const res = await api(route.method, url(deploymentId, route, ids), {
          auth: acme.member,
          body: route.body?.(ids),
        });
        expectError(res, 404, 'NOT_FOUND');
      }
      // And the other account's member cannot reach acme's deployment.
      const res = await api(route.method, url(acme.deployments[0], route, mine), {
        auth: other.member,
        body: route.body?.(mine),
      });
      expectError(res, 404, 'NOT_FOUND');
      expect(await fingerprint()).toBe(before);
    });

    it(`${label}: a member may do it`, async () => {
      const res = await api(route.method, url(acme.deployments[0], route, mine), {
        auth: acme.member,
        body: route.body?.(mine),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(route.ok);
    });
  }

  it('answers 400 for path ids that are not positive integers', async () => {
    for (const path of ['/api/v1/deployments/abc/workspace', `${base(acme.deployments[0])}/workbooks/0`]) {
      expectError(await api('GET', path, { auth: acme.member }), 400, 'VALIDATION_FAILED');
    }
  });
});
