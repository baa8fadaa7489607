// Every statement of the hot and scheduled paths, captured while the requests run through
// HTTP (and the cron and queue handlers), is explained with its bound parameters; a full scan
// of a tenant table fails the test and prints the statement. Cost must not grow with the
// account or with the whole database (issue 10).
import { env } from 'cloudflare:test';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_DATABASE, type LoggedStatement, recordStatements, stopRecording } from '../src/core/db';
import { publishDashboard, setEmbed } from './embedding/fixtures';
import { type SeededAccount, seedAccount } from './helpers/harness';
import { api } from './helpers/http';
import { platform } from './helpers/platform';
import { consume, recordingPorts, tick } from './notifications/ports';
import { draft } from './workspace/helpers';

/**
 * Tables a scan of which is fine, each with why. Everything else in sqlite_master is a tenant
 * table. CTEs, json_each and subquery temp tables are not in sqlite_master, so never flagged.
 */
const SCANNABLE: Record<string, string> = {
  d1_migrations: 'the migration journal: a few rows, never read by the Worker',
  sqlite_sequence: 'SQLite bookkeeping, one row per AUTOINCREMENT table',
  _cf_KV: 'D1 internal',
  _cf_METADATA: 'D1 internal',
};

interface Offence {
  sql: string;
  params: unknown[];
  plan: string[];
}

let tables: Set<string>;
// The control database's tables: its statements (the cron's sweep) are explained there.
let controlTables: Set<string>;

async function tenantTables(db: D1Database = env.DB): Promise<Set<string>> {
  const { results } = await db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all<{
    name: string;
  }>();
  return new Set(results.map((r) => r.name).filter((n) => !(n in SCANNABLE) && !n.startsWith('sqlite_')));
}

/** The full scans of tenant tables in one statement's plan, or null when it has none. */
async function offence(statement: LoggedStatement): Promise<Offence | null> {
  if (!/^\s*(select|with|insert|update|delete|replace)\b/i.test(statement.sql)) return null;
  const onControl = statement.shard === CONTROL_DATABASE;
  const { plan, scans } = await scansOf(
    statement.sql,
    statement.params,
    onControl ? env.CONTROL_DB : env.DB,
    onControl ? controlTables : tables,
  );
  return scans.length > 0 ? { sql: statement.sql, params: statement.params, plan } : null;
}

/** Plan details of `sql` that scan a tenant table without an index. */
async function scansOf(
  sql: string,
  params: unknown[],
  db: D1Database = env.DB,
  checked: Set<string> = tables,
): Promise<{ plan: string[]; scans: string[] }> {
  const { results } = await db
    .prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params)
    .all<{ detail: string }>();
  const plan = results.map((r) => r.detail);
  const scans = plan.filter((detail) => {
    const match = /^SCAN (\S+)/.exec(detail);
    if (!match || /USING (COVERING )?INDEX/.test(detail)) return false;
    // A virtual table answering a constraint through its own index (FTS5: `INDEX 0:M…` is a
    // MATCH) reads only the matching rows; an FTS5 table scanned without one (`INDEX 0:`) does not.
    if (/VIRTUAL TABLE INDEX \d+:\S*M/.test(detail)) return false;
    return checked.has(match[1] as string);
  });
  return { plan, scans };
}

/**
 * What a DELETE does that its own plan does not show: SQLite looks up every child row of each
 * deleted row (foreign keys are enforced on D1) and cascades into the children's children.
 * Each lookup is explained as `SELECT 1 FROM child WHERE fk = ?`.
 */
async function cascadeOffences(sql: string): Promise<Offence[]> {
  const target = /^\s*delete\s+from\s+["`]?(\w+)/i.exec(sql)?.[1];
  if (!target) return [];
  const found: Offence[] = [];
  const visited = new Set<string>();
  const walk = async (parent: string, path: string): Promise<void> => {
    if (visited.has(parent)) return;
    visited.add(parent);
    for (const child of tables) {
      const { results } = await env.DB.prepare(
        'SELECT "table", "from", on_delete FROM pragma_foreign_key_list(?)',
      )
        .bind(child)
        .all<{ table: string; from: string; on_delete: string }>();
      for (const fk of results.filter((r) => r.table === parent)) {
        const lookup = `SELECT 1 FROM "${child}" WHERE "${fk.from}" = ?`;
        const { plan, scans } = await scansOf(lookup, [null]);
        if (scans.length > 0) {
          found.push({
            sql: `${lookup}  -- foreign-key lookup of ${path} → ${child}.${fk.from}`,
            params: [],
            plan,
          });
        }
        if (fk.on_delete === 'CASCADE') await walk(child, `${path} → ${child}`);
      }
    }
  };
  await walk(target, `DELETE FROM ${target}`);
  return found;
}

/** Runs `work` with every statement recorded; answers the offences of the distinct statements. */
async function offencesOf(name: string, work: () => Promise<unknown>): Promise<Offence[]> {
  const log = recordStatements();
  try {
    await work();
  } finally {
    stopRecording();
  }
  expect(log.length, `${name} ran no statement: is the statement log wired?`).toBeGreaterThan(0);
  const seen = new Set<string>();
  const found: Offence[] = [];
  for (const statement of log) {
    const key = `${statement.shard ?? 0}:${statement.sql}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const o = await offence(statement);
    if (o) found.push(o);
    if (statement.shard !== CONTROL_DATABASE) found.push(...(await cascadeOffences(statement.sql)));
  }
  if (found.length > 0) {
    const text = found
      .map(
        (o, i) =>
          `  [${i + 1}] ${o.sql}\n      params: ${JSON.stringify(o.params).slice(0, 200)}\n      plan: ${o.plan.join(' | ')}`,
      )
      .join('\n');
    console.log(`FULL SCAN in "${name}" (${found.length} statement(s)):\n${text}`);
  }
  return found;
}

const summary = (found: Offence[]) =>
  found.map((o) => `${o.plan.filter((d) => d.startsWith('SCAN')).join(', ')} :: ${o.sql}`);

let acme: SeededAccount;
let deploymentId: number;
let board: { id: number; publicId: string };
let sessionId: string;
let notificationUrl: string;
let rec: ReturnType<typeof recordingPorts>;

const mintBody = (externalId: string) => ({
  deploymentId,
  externalId,
  groups: ['sales', 'support'],
  userAttributes: [{ name: 'region', value: 'eu' }],
  userProfile: { displayName: 'Ada' },
  securityContext: { org: 1 },
});

async function ok(res: Promise<{ status: number; body: unknown }>, status = 200) {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  return r.body as any;
}

beforeAll(async () => {
  tables = await tenantTables();
  controlTables = await tenantTables(env.CONTROL_DB);
  acme = await seedAccount();
  // A second account makes a scan over all accounts visible as such (rows of both exist).
  await seedAccount();
  deploymentId = acme.deployments[0];
  for (const name of ['sales', 'support'])
    await ok(api('POST', '/api/v1/groups', { auth: acme.admin, body: { name } }), 200);
  await ok(
    api('POST', '/api/v1/user-attributes', { auth: acme.admin, body: { name: 'region', type: 'string' } }),
    200,
  );
  board = await publishDashboard(acme);
  await setEmbed(acme, board.publicId, { allowEmbed: true });
  sessionId = (
    await ok(api('POST', '/api/v1/embed/generate-session', { auth: acme.key, body: mintBody('returning') }))
  ).sessionId;
  for (const name of ['Revenue north', 'Revenue south', 'Costs']) {
    await ok(
      api('POST', `/api/v1/deployments/${deploymentId}/workbooks`, { auth: acme.admin, body: { name } }),
      200,
    );
  }
  const created = await ok(
    api('POST', `/api/v1/deployments/${deploymentId}/notifications`, {
      auth: acme.admin,
      body: { dashboardId: board.id, scheduleType: 'DAILY', hour: 7, minute: 0 },
    }),
    200,
  );
  notificationUrl = `/api/v1/deployments/${deploymentId}/notifications/${created.id}`;
  await ok(
    api('POST', `${notificationUrl}/recipients`, {
      auth: acme.admin,
      body: { recipients: [{ userId: acme.adminUserId }, { email: 'someone@example.com', type: 'USER' }] },
    }),
  );
});

afterEach(() => {
  stopRecording();
});

describe('no full scan of a tenant table on the hot paths', () => {
  it('generate-session, new external user', async () => {
    const found = await offencesOf('generate-session new user', () =>
      ok(
        api('POST', '/api/v1/embed/generate-session', {
          auth: acme.key,
          body: mintBody(`new-${Date.now()}`),
        }),
      ),
    );
    expect(summary(found)).toEqual([]);
  });

  it('generate-session, returning user', async () => {
    const found = await offencesOf('generate-session returning user', () =>
      ok(api('POST', '/api/v1/embed/generate-session', { auth: acme.key, body: mintBody('returning') })),
    );
    expect(summary(found)).toEqual([]);
  });

  it("an account user's attribute values: set, listed, cleared, and carried by an internal session", async () => {
    const attribute = (await ok(api('GET', '/api/v1/user-attributes?name=region', { auth: acme.admin })))
      .items[0];
    const value = (v: unknown) => ({
      userId: String(acme.adminUserId),
      userAttributeId: String(attribute.id),
      value: v,
    });
    const found = await offencesOf('user attribute values', async () => {
      await ok(api('POST', '/api/v1/user-attribute-values', { auth: acme.admin, body: value('eu') }));
      await ok(api('GET', `/api/v1/user-attribute-values/${acme.adminUserId}`, { auth: acme.admin }));
      await ok(
        api('POST', '/api/v1/embed/generate-session', {
          auth: acme.key,
          body: { deploymentId, internalId: 'admin' },
        }),
      );
      await ok(api('POST', '/api/v1/user-attribute-values', { auth: acme.admin, body: value(null) }));
    });
    expect(summary(found)).toEqual([]);
  });

  it('embed dashboard load', async () => {
    const found = await offencesOf('embed dashboard load', () =>
      ok(api('GET', `/api/v1/embed/dashboard/${board.publicId}`, { auth: { session: sessionId } })),
    );
    expect(summary(found)).toEqual([]);
  });

  it('viewer page', async () => {
    const found = await offencesOf('viewer page', async () => {
      const res = await api(
        'GET',
        `/embed/dashboard/${board.publicId}?session=${encodeURIComponent(sessionId)}`,
      );
      expect(res.status).toBe(200);
    });
    expect(summary(found)).toEqual([]);
  });

  it('workspace list, first page', async () => {
    const found = await offencesOf('workspace list first page', () =>
      ok(
        api('GET', `/api/v1/deployments/${deploymentId}/workspace?first=50&orderByField=updated_at`, {
          auth: acme.member,
        }),
      ),
    );
    expect(summary(found)).toEqual([]);
  });

  it('workspace search', async () => {
    const found = await offencesOf('workspace search', () =>
      ok(api('GET', `/api/v1/deployments/${deploymentId}/workspace?search=revenue`, { auth: acme.member })),
    );
    expect(summary(found)).toEqual([]);
  });

  it('Cube workspace lists, ancestors, upserts and bulk operations', async () => {
    const base = `/api/v1/deployments/${deploymentId}`;
    const as = { auth: acme.member };
    const folder = await ok(api('POST', `${base}/folders`, { ...as, body: { name: 'Plan folder' } }));
    const child = await ok(
      api('POST', `${base}/folders`, { ...as, body: { name: 'Plan child', parentId: folder.id } }),
    );
    const report = await ok(
      api('POST', `${base}/reports`, {
        ...as,
        body: { name: 'Plan report', workbookId: board.id, externalWorkbookId: 'x' },
      }),
    );
    const found = await offencesOf('Cube workspace', async () => {
      await ok(api('GET', `${base}/folders?parentId=${folder.id}`, as));
      await ok(api('GET', `${base}/folders`, as));
      await ok(api('GET', `${base}/folders/${child.id}/ancestors`, as));
      await ok(api('GET', `${base}/workbooks`, as));
      await ok(api('GET', `${base}/workbooks?folderId=0`, as));
      for (const sortBy of ['name', 'createdAt', 'updatedAt', 'lastViewedAt']) {
        await ok(api('GET', `${base}/reports?workbookId=${board.id}&sortBy=${sortBy}`, as));
        await ok(api('GET', `${base}/reports?sortBy=${sortBy}&sortDirection=ASC`, as));
      }
      await ok(api('GET', `${base}/reports?externalWorkbookId=x`, as));
      await ok(api('GET', `${base}/reports?search=plan`, as));
      await ok(api('PUT', `${base}/workbooks/by-slug/plan-slug`, { ...as, body: { meta: { a: 1 } } }));
      await ok(api('PUT', `${base}/workbooks/by-slug/plan-slug`, { ...as, body: { meta: { b: 1 } } }));
      await ok(
        api('PUT', `${base}/reports/${report.id}/connect-workbook`, {
          ...as,
          body: { externalWorkbookId: 'x', resultLocation: 'A1' },
        }),
      );
      await ok(api('PUT', `${base}/reports/${report.id}/refresh`, { ...as, body: {} }));
      await ok(
        api('DELETE', `${base}/reports/${report.id}/connect-workbook`, {
          ...as,
          body: { externalWorkbookId: 'x' },
        }),
      );
      await ok(api('POST', `${base}/workbooks/${board.id}/duplicate`, { ...as, body: {} }));
      await ok(
        api('PUT', `${base}/reports/by-public-id/${report.publicId}`, { ...as, body: { title: 't' } }),
      );
      await ok(
        api('POST', `${base}/workspace/bulk-move`, {
          ...as,
          body: {
            folderId: folder.id,
            items: [
              { type: 'REPORT', id: report.id },
              { type: 'FOLDER', id: child.id },
            ],
          },
        }),
      );
      await ok(
        api('POST', `${base}/workspace/bulk-delete`, {
          ...as,
          body: {
            items: [
              { type: 'FOLDER', id: folder.id },
              { type: 'FOLDER', id: child.id },
              { type: 'REPORT', id: report.id },
            ],
          },
        }),
      );
    });
    expect(summary(found)).toEqual([]);
  });

  it('workspace sharing: embed access, the shared workspace, an embed tenant’s workbooks', async () => {
    const base = `/api/v1/deployments/${deploymentId}`;
    const as = { auth: acme.admin };
    const folder = await ok(api('POST', `${base}/folders`, { ...as, body: { name: 'Shared plan folder' } }));
    const wb = await ok(
      api('POST', `${base}/workbooks`, { ...as, body: { name: 'Shared plan', folderId: folder.id } }),
    );
    await ok(api('POST', `${base}/workbooks/${wb.id}/publish`, { ...as, body: { config: draft(1) } }));
    const access = `${base}/workbooks/${wb.id}/embed-access`;
    const found = await offencesOf('workspace sharing', async () => {
      // The session of beforeAll is of the `default` tenant.
      await ok(api('PUT', access, { ...as, body: { embedTenantName: 'default', action: 'read' } }));
      await ok(
        api('PUT', access, { ...as, body: { allEmbedUsers: true, action: 'read', allowEmbed: true } }),
      );
      await ok(api('GET', access, as));
      for (const query of [
        '',
        `?folderId=${folder.id}`,
        '?search=plan',
        '?search=pl',
        '?orderByField=name&orderByDirection=ASC',
        '?orderByField=created_at',
        '?orderByField=viewer_last_viewed_at',
      ]) {
        await ok(api('GET', `${base}/shared-workspace${query}`, { auth: { session: sessionId } }));
      }
      for (const query of [
        '',
        '?accessSource=tenant',
        '?accessSource=allEmbedUsers',
        '?accessSource=folder',
      ]) {
        await ok(api('GET', `${base}/embed-tenants/default/workbooks${query}`, as));
      }
      await ok(api('PUT', access, { ...as, body: { embedTenantName: 'default', action: 'none' } }));
    });
    expect(summary(found)).toEqual([]);
  });

  it('publish', async () => {
    const found = await offencesOf('publish', () =>
      ok(
        api('POST', `/api/v1/deployments/${deploymentId}/workbooks/${board.id}/publish`, {
          auth: acme.admin,
          body: {},
        }),
      ),
    );
    expect(summary(found)).toEqual([]);
  });
});

describe('no full scan of a tenant table on the scheduled paths', () => {
  it('the cron tick (with a notification due)', async () => {
    rec = recordingPorts();
    platform.deliveryPorts = rec.ports;
    await env.DB.prepare('UPDATE notifications SET next_run_at = ? WHERE id = ?')
      .bind('2026-05-01T07:00:00.000Z', Number(notificationUrl.split('/').pop()))
      .run();
    const found = await offencesOf('cron tick', () => tick('2026-05-01T07:00:30.000Z'));
    expect(rec.queued.length).toBeGreaterThan(0);
    expect(summary(found)).toEqual([]);
  });

  it('the notifications consumer', async () => {
    rec = recordingPorts();
    platform.deliveryPorts = rec.ports;
    const run = await ok(api('POST', `${notificationUrl}/run`, { auth: acme.admin }), 202);
    const found = await offencesOf('notifications consumer', () => consume([run.id]));
    expect(rec.emails.length).toBeGreaterThan(0);
    expect(summary(found)).toEqual([]);
  });
});

describe('no full scan of a tenant table on cascading deletes', () => {
  it('deleting a recipient', async () => {
    const recipient = await env.DB.prepare('SELECT id FROM notification_recipients WHERE notification_id = ?')
      .bind(Number(notificationUrl.split('/').pop()))
      .first<{ id: number }>();
    const recipientId = recipient?.id;
    expect(recipientId).toBeDefined();
    const found = await offencesOf('delete a recipient', () =>
      ok(api('DELETE', `${notificationUrl}/recipients/${recipientId}`, { auth: acme.admin })),
    );
    expect(summary(found)).toEqual([]);
  });

  it('deleting a workbook', async () => {
    const found = await offencesOf('delete a workbook', async () => {
      const res = await api('DELETE', `/api/v1/deployments/${deploymentId}/workbooks/${board.id}`, {
        auth: acme.admin,
      });
      expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    });
    expect(summary(found)).toEqual([]);
  });
});

describe('the triggers keeping shared_workspace_items', () => {
  it('run only statements served by indexes (their plans are not part of the statement that fires them)', async () => {
    const { results } = await env.DB.prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%shared_workspace_items%'",
    ).all<{ name: string; sql: string }>();
    expect(results.length).toBeGreaterThanOrEqual(9);
    const found: string[] = [];
    for (const trigger of results) {
      const body = trigger.sql.slice(
        trigger.sql.search(/\bBEGIN\b/) + 'BEGIN'.length,
        trigger.sql.lastIndexOf('END'),
      );
      const statements = body
        .split(';')
        .map((s) => s.trim())
        .filter(Boolean);
      expect(statements.length, trigger.name).toBeGreaterThan(0);
      for (const statement of statements) {
        // The row's columns become constants: what matters is how each table is reached.
        const { plan, scans } = await scansOf(statement.replace(/\b(NEW|OLD)\.\w+/g, '1'), []);
        if (scans.length > 0) found.push(`${trigger.name}: ${plan.join(' | ')} :: ${statement}`);
      }
    }
    expect(found).toEqual([]);
  });
});

describe('every foreign-key child column is served by an index', () => {
  it('a lookup of child rows by their parent (what a cascade or a key check does) is not a scan', async () => {
    const unindexed: string[] = [];
    for (const child of tables) {
      const { results } = await env.DB.prepare('SELECT "table", "from" FROM pragma_foreign_key_list(?)')
        .bind(child)
        .all<{ table: string; from: string }>();
      for (const fk of results) {
        const { scans } = await scansOf(`SELECT 1 FROM "${child}" WHERE "${fk.from}" = ?`, [null]);
        if (scans.length > 0) unindexed.push(`${child}.${fk.from} → ${fk.table}`);
      }
    }
    if (unindexed.length > 0) console.log(`UNINDEXED foreign keys:\n  ${unindexed.join('\n  ')}`);
    expect(unindexed).toEqual([]);
  });
});
