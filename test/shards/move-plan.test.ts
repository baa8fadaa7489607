import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { MOVE_PLAN, movedTables, NOT_ACCOUNT_OWNED, shapeOf } from '../../src/accounts/move-plan';

/** Whether `name` is one of the tables the plan says hold no account's rows (a `prefix*` covers its shadow tables). */
const notOwned = (name: string) =>
  Object.keys(NOT_ACCOUNT_OWNED).some((listed) =>
    listed.endsWith('*') ? name.startsWith(listed.slice(0, -1)) : name === listed,
  );

describe('the plan of a move', () => {
  it('covers every table of the shard schema: moved, or listed as holding no account’s rows', async () => {
    const { results } = await env.DB.prepare(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' ORDER BY name",
    ).all<{ name: string }>();
    const tables = results.map((r) => r.name);
    const moved = new Set(movedTables());
    const forgotten = tables.filter((name) => !moved.has(name) && !notOwned(name));
    expect(forgotten, 'tables neither moved nor listed in NOT_ACCOUNT_OWNED').toEqual([]);
    // Nothing is both, and everything listed exists.
    expect(tables.filter((name) => moved.has(name) && notOwned(name))).toEqual([]);
    for (const name of moved) expect(tables).toContain(name);
    for (const listed of Object.keys(NOT_ACCOUNT_OWNED)) {
      expect(
        tables.some((t) => (listed.endsWith('*') ? t.startsWith(listed.slice(0, -1)) : t === listed)),
      ).toBe(true);
    }
  });

  it('copies parents before the rows that point at them, and restores only columns it held back', () => {
    const order = MOVE_PLAN.map((s) => shapeOf(s.table).name);
    const first = (name: string) => order.indexOf(name);
    expect(first('accounts')).toBe(0);
    for (const [child, parent] of [
      ['users', 'accounts'],
      ['user_roles', 'roles'],
      ['embed_users', 'embed_tenants'],
      ['workspace_items', 'deployments'],
      ['reports', 'workspace_items'],
      ['dashboard_versions', 'published_dashboards'],
      ['report_snapshots', 'snapshot_contents'],
      ['shared_workspace_items', 'embed_tenant_shares'],
      ['notification_deliveries', 'notification_runs'],
      ['notification_deliveries', 'notification_recipients'],
      ['dashboard_comment_mentions', 'dashboard_comments'],
      ['dashboard_exports', 'published_dashboards'],
    ] as const) {
      expect(first(child), `${child} after ${parent}`).toBeGreaterThan(first(parent));
    }
    for (const step of MOVE_PLAN) {
      if (step.kind !== 'restore') continue;
      const copied = MOVE_PLAN.find((s) => s.kind === 'rows' && s.table === step.table);
      expect(copied?.kind === 'rows' && Object.keys(copied.initially ?? {})).toEqual(
        expect.arrayContaining(step.columns),
      );
    }
  });
});
