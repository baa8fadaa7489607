import { ApiError, QUOTA_RETRY_AFTER_SECONDS, tooManyRequests } from '../core/errors';
import type { AccountScope } from '../core/scope';
import type { EmbedUser, ProvisionUserInput } from './catalogues.schemas';
import * as repo from './embed-provision.repository';
import { unique } from './mint-plan';

/**
 * Cube's provisionEmbedUser(s): the external-user writes of generate-session (profile, email,
 * group memberships, the tenant on demand, the externalUserLimit) without a session.
 */

/** One entry's refusal, as Cube's ProvisionEmbedUserFailure. */
export interface ProvisionFailure {
  externalId: string;
  error: { status: number; message: string };
}

const quotaMessage = (limit: number) => `The account has reached its limit of ${limit} external users`;

/** An entry's writes, or the refusal Cube gives it (400 unknown group, 429 past the limit). */
type Planned =
  | { ok: true; write: repo.ProvisionWrite }
  | { ok: false; failure: ProvisionFailure; path: 'groups' | 'tenantGroups' | 'externalId' };

function missing(given: string[] | undefined, known: Set<string>): string[] {
  return (given ?? []).filter((name) => !known.has(name));
}

/**
 * Judges the entries in order against one read: each new externalId takes one unit of the
 * remaining quota; a repeated one is new only the first time.
 */
function plan(read: repo.ProvisionRead, entries: ProvisionUserInput[]): Planned[] {
  let remaining = read.externalUserLimit - read.externalUserCount;
  const known = new Set(read.existing);
  return entries.map((entry): Planned => {
    const accountGroups = entry.groups == null ? undefined : unique(entry.groups);
    const tenantGroups = entry.tenantGroups == null ? undefined : unique(entry.tenantGroups);
    const unknownAccount = missing(accountGroups, read.accountGroups);
    const unknown = [...unknownAccount, ...missing(tenantGroups, read.tenantGroups)];
    const fail = (
      status: number,
      message: string,
      path: 'groups' | 'tenantGroups' | 'externalId',
    ): Planned => ({
      ok: false,
      failure: { externalId: entry.externalId, error: { status, message } },
      path,
    });
    if (unknown.length > 0) {
      const path = unknownAccount.length > 0 ? 'groups' : 'tenantGroups';
      return fail(400, `Groups with names ${unknown.join(', ')} not found`, path);
    }
    if (!known.has(entry.externalId)) {
      if (remaining <= 0) return fail(429, quotaMessage(read.externalUserLimit), 'externalId');
      remaining--;
      known.add(entry.externalId);
    }
    const profile = entry.userProfile ?? {};
    const set: repo.ProvisionWrite['set'] = {};
    if (entry.email != null) set.email = entry.email;
    if (profile.displayName !== undefined) set.displayName = profile.displayName;
    if (profile.picture !== undefined) set.picture = profile.picture;
    return { ok: true, write: { externalId: entry.externalId, set, accountGroups, tenantGroups } };
  });
}

/** Reads, plans and writes once; a concurrent writer that took the last quota refuses the batch. */
async function attempt(scope: AccountScope, tenantName: string, entries: ProvisionUserInput[]) {
  const read = await repo.readProvisionState(scope, {
    tenantName,
    externalIds: unique(entries.map((e) => e.externalId)),
    accountGroups: unique(entries.flatMap((e) => e.groups ?? [])),
    tenantGroups: unique(entries.flatMap((e) => e.tenantGroups ?? [])),
  });
  const planned = plan(read, entries);
  const writes = planned.flatMap((p) => (p.ok ? [p.write] : []));
  if (writes.length === 0) return { planned, read, users: new Map<string, EmbedUser>() };
  const outcome = await repo.writeProvision(scope, { tenantName, users: writes });
  return outcome.ok ? { planned, read, users: outcome.users } : null;
}

/**
 * Provisions the entries in order as one read and one write batch: per entry the stored user,
 * or its refusal. When the batch's quota guard finds another writer took the last places since
 * the read, it re-reads and re-plans once, then refuses the whole call with 429.
 */
export async function provisionUsers(
  scope: AccountScope,
  tenantName: string,
  entries: ProvisionUserInput[],
): Promise<{ succeeded: EmbedUser[]; failed: ProvisionFailure[] }> {
  const { succeeded, refusals } = await provision(scope, tenantName, entries);
  return { succeeded, failed: refusals.flatMap((r) => (r.ok ? [] : [r.failure])) };
}

async function provision(
  scope: AccountScope,
  tenantName: string,
  entries: ProvisionUserInput[],
): Promise<{ succeeded: EmbedUser[]; refusals: Planned[] }> {
  const result = (await attempt(scope, tenantName, entries)) ?? (await attempt(scope, tenantName, entries));
  if (!result) {
    throw tooManyRequests(
      'QUOTA_EXCEEDED',
      'The account reached its external user limit',
      QUOTA_RETRY_AFTER_SECONDS,
    );
  }
  const succeeded: EmbedUser[] = [];
  for (const p of result.planned) {
    if (!p.ok) continue;
    const user = result.users.get(p.write.externalId);
    if (!user) throw new Error(`The provision batch returned no row for ${p.write.externalId}`);
    succeeded.push(user);
  }
  return { succeeded, refusals: result.planned.filter((p) => !p.ok) };
}

/** provisionEmbedUser: one entry; its refusal is the call's error (400 or 429 with Retry-After). */
export async function provisionUser(
  scope: AccountScope,
  tenantName: string,
  entry: ProvisionUserInput,
): Promise<EmbedUser> {
  const { succeeded, refusals } = await provision(scope, tenantName, [entry]);
  const refusal = refusals[0];
  if (refusal && !refusal.ok) {
    const { status, message } = refusal.failure.error;
    if (status === 429) throw tooManyRequests('QUOTA_EXCEEDED', message, QUOTA_RETRY_AFTER_SECONDS);
    throw new ApiError('BAD_REQUEST', message, [{ path: refusal.path, message: 'Unknown group' }]);
  }
  return succeeded[0] as EmbedUser;
}
