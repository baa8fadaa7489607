import { type SQL, sql } from 'drizzle-orm';
import { runBatch } from '../core/db';
import type { AccountScope } from '../core/scope';
import { type EmbedUserRow, toEmbedUser } from './catalogues.repository';
import {
  byName,
  externalUserQuotaGuard,
  guardOf,
  replaceMemberships,
  upsertEmbedUser,
} from './embed-sessions.repository';

/**
 * SQL of provisionEmbedUser(s): one read batch and one write batch per call, whatever the
 * number of users. Rows are found through natural keys (account + tenant name, tenant +
 * externalId, catalogue + name), so no statement needs an id an earlier one produced.
 */

/** What provisioning decides on: the quota, and which users and group names already exist. */
export interface ProvisionRead {
  externalUserCount: number;
  externalUserLimit: number;
  /** externalIds of the tenant's stored users among those asked for. */
  existing: Set<string>;
  /** Names found in the account-wide catalogue (Cube's `groups`). */
  accountGroups: Set<string>;
  /** Names found in the tenant's catalogue (Cube's `tenantGroups`). */
  tenantGroups: Set<string>;
}

const tenantOf = (accountId: number, tenantName: string): SQL =>
  sql`(SELECT id FROM embed_tenants WHERE account_id = ${accountId} AND name = ${tenantName})`;

const names = (rows: D1Result<unknown> | undefined, column: string): Set<string> =>
  new Set(((rows?.results ?? []) as Record<string, string>[]).map((r) => r[column] as string));

/** Everything provisioning checks, in ONE batch; every statement is served by an index. */
export async function readProvisionState(
  { db, accountId }: AccountScope,
  q: {
    tenantName: string;
    externalIds: string[];
    accountGroups: string[];
    tenantGroups: string[];
  },
): Promise<ProvisionRead> {
  const tenant = tenantOf(accountId, q.tenantName);
  const [account, users, accountGroups, tenantGroups] = await runBatch(db, [
    sql`SELECT external_user_count, external_user_limit FROM accounts WHERE id = ${accountId}`,
    sql`SELECT u.external_id FROM embed_users u
      WHERE u.tenant_id = ${tenant} AND u.external_id IN (SELECT value FROM json_each(${JSON.stringify(q.externalIds)}))`,
    sql`SELECT g.name FROM ${byName('g', 'embed_groups', q.accountGroups)}
      WHERE g.account_id = ${accountId} AND g.tenant_id IS NULL`,
    sql`SELECT g.name FROM ${byName('g', 'embed_groups', q.tenantGroups)}
      WHERE g.account_id = ${accountId} AND g.tenant_id = ${tenant}`,
  ]);
  const head = (account?.results[0] ?? {}) as { external_user_count?: number; external_user_limit?: number };
  return {
    externalUserCount: head.external_user_count ?? 0,
    externalUserLimit: head.external_user_limit ?? 0,
    existing: names(users, 'external_id'),
    accountGroups: names(accountGroups, 'name'),
    tenantGroups: names(tenantGroups, 'name'),
  };
}

/** One user's writes: only the fields given are set; group lists given replace that scope's memberships. */
export interface ProvisionWrite {
  externalId: string;
  set: { email?: string; displayName?: string | null; picture?: string | null };
  accountGroups?: string[];
  tenantGroups?: string[];
}

export type ProvisionOutcome =
  | { ok: true; users: Map<string, ReturnType<typeof toEmbedUser>> }
  | { ok: false; reason: 'quota_exceeded' };

/**
 * Every user's writes as ONE batch (one transaction), applied in the order given, so a repeated
 * externalId ends with its last entry. The quota guard counts the request's new users inside the
 * same transaction as their inserts: a concurrent writer cannot take the account past its limit.
 */
export async function writeProvision(
  scope: AccountScope,
  w: { tenantName: string; users: ProvisionWrite[] },
): Promise<ProvisionOutcome> {
  const { db, accountId } = scope;
  const now = scope.now.toISOString();
  const tenant = tenantOf(accountId, w.tenantName);
  const ids = JSON.stringify([...new Set(w.users.map((u) => u.externalId))]);
  const newUsers = sql`SELECT count(*) FROM json_each(${ids}) d
    WHERE NOT EXISTS (SELECT 1 FROM embed_users x WHERE x.tenant_id = ${tenant} AND x.external_id = d.value)`;
  const statements: SQL[] = [
    sql`INSERT INTO embed_tenants (account_id, name, created_at)
      VALUES (${accountId}, ${w.tenantName}, ${now}) ON CONFLICT DO NOTHING`,
    externalUserQuotaGuard(accountId, newUsers),
  ];
  const scopes = {
    accountGroups: sql`g.account_id = ${accountId} AND g.tenant_id IS NULL`,
    tenantGroups: sql`g.account_id = ${accountId} AND g.tenant_id = ${tenant}`,
  };
  for (const u of w.users) {
    const user = sql`(SELECT id FROM embed_users WHERE tenant_id = ${tenant} AND external_id = ${u.externalId})`;
    statements.push(upsertEmbedUser(accountId, tenant, u.externalId, u.set, now));
    for (const kind of ['accountGroups', 'tenantGroups'] as const) {
      const given = u[kind];
      if (given === undefined) continue;
      statements.push(...replaceMemberships(user, scopes[kind], given));
    }
  }
  statements.push(sql`SELECT u.id, u.external_id, u.email, u.display_name, u.created_at FROM embed_users u
    WHERE u.tenant_id = ${tenant} AND u.external_id IN (SELECT value FROM json_each(${ids}))`);
  try {
    const results = await runBatch(db, statements);
    const rows = (results[results.length - 1]?.results ?? []) as unknown as EmbedUserRow[];
    return { ok: true, users: new Map(rows.map((r) => [r.external_id, toEmbedUser(r)])) };
  } catch (error) {
    if (guardOf(error) === 'quota_exceeded') return { ok: false, reason: 'quota_exceeded' };
    throw error;
  }
}
