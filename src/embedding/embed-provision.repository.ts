import { and, eq, inArray, sql } from 'drizzle-orm';
import { accounts } from '../../schema/accounts';
import { embedTenants, embedUsers } from '../../schema/embedding';
import { runBatch, type Statement } from '../core/db';
import type { AccountScope } from '../core/scope';
import type { EmbedUser } from './catalogues.schemas';
import {
  byName,
  embedUserIdIn,
  externalUserQuotaGuard,
  guardOf,
  inScope,
  jsonValues,
  replaceMemberships,
  tenantIdIn,
  upsertEmbedUser,
} from './embed-sessions.repository';
import { embedUserColumns, embedUserOf } from './embed-tenants.repository';
import type { RawRow } from './embedding.rows';

/**
 * SQL of provisionEmbedUser(s): one read batch and one write batch per call, whatever the
 * number of users. Rows are found through natural keys (account + tenant name, tenant +
 * externalId, catalogue + name), so no statement needs an id an earlier one produced. The
 * catalogue reads by name and the quota guard are hand-written (see embed-sessions.repository).
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

const names = (rows: D1Result<RawRow> | undefined, column: string): Set<string> =>
  new Set((rows?.results ?? []).map((r) => String(r[column])));

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
  const tenant = tenantIdIn(accountId, q.tenantName);
  const [account, users, accountGroups, tenantGroups] = await runBatch(db, [
    db
      .select({
        externalUserCount: accounts.externalUserCount,
        externalUserLimit: accounts.externalUserLimit,
      })
      .from(accounts)
      .where(eq(accounts.id, accountId)),
    db
      .select({ externalId: embedUsers.externalId })
      .from(embedUsers)
      .where(and(eq(embedUsers.tenantId, tenant), inArray(embedUsers.externalId, jsonValues(q.externalIds)))),
    sql`SELECT g.name FROM ${byName('g', 'embed_groups', q.accountGroups)}
      WHERE ${inScope('g', accountId, tenant, false)}`,
    sql`SELECT g.name FROM ${byName('g', 'embed_groups', q.tenantGroups)}
      WHERE ${inScope('g', accountId, tenant, true)}`,
  ]);
  const head = account?.results[0];
  return {
    externalUserCount: Number(head?.external_user_count ?? 0),
    externalUserLimit: Number(head?.external_user_limit ?? 0),
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
  | { ok: true; users: Map<string, EmbedUser> }
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
  const tenant = tenantIdIn(accountId, w.tenantName);
  const ids = [...new Set(w.users.map((u) => u.externalId))];
  // Counted over the JSON list inside the guard, so the count and the inserts share one transaction.
  const newUsers = sql`SELECT count(*) FROM json_each(${JSON.stringify(ids)}) d
    WHERE NOT EXISTS (SELECT 1 FROM embed_users x WHERE x.tenant_id = ${tenant} AND x.external_id = d.value)`;
  const statements: Statement[] = [
    db.insert(embedTenants).values({ accountId, name: w.tenantName, createdAt: now }).onConflictDoNothing(),
    externalUserQuotaGuard(accountId, newUsers),
  ];
  const scopes = {
    accountGroups: inScope('g', accountId, tenant, false),
    tenantGroups: inScope('g', accountId, tenant, true),
  };
  for (const u of w.users) {
    const user = embedUserIdIn(tenant, u.externalId);
    statements.push(upsertEmbedUser({ accountId, tenant, externalId: u.externalId, set: u.set, now }));
    for (const kind of ['accountGroups', 'tenantGroups'] as const) {
      const given = u[kind];
      if (given === undefined) continue;
      statements.push(...replaceMemberships(user, scopes[kind], given));
    }
  }
  statements.push(
    db
      .select(embedUserColumns)
      .from(embedUsers)
      .where(and(eq(embedUsers.tenantId, tenant), inArray(embedUsers.externalId, jsonValues(ids)))),
  );
  try {
    const results = await runBatch(db, statements);
    const rows = (results.at(-1)?.results ?? []).map(embedUserOf);
    return { ok: true, users: new Map(rows.map((r) => [r.externalId, r])) };
  } catch (error) {
    if (guardOf(error) === 'quota_exceeded') return { ok: false, reason: 'quota_exceeded' };
    throw error;
  }
}
