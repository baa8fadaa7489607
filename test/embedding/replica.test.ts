import { describe, expect, it } from 'vitest';
import type { ReplicaView } from '../../src/core/env';
import type { MintRead } from '../../src/embedding/generate-session.repository';
import { expectError, OPERATOR, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { platform } from '../helpers/platform';
import { embedState, kvPayload, mint, mintOk, roundTrips, rows } from './fixtures';

/** Makes the replica answer `view(read)` instead of what it read: a replica that lags. */
const staleReplica = (view: (read: MintRead) => MintRead) => {
  // The mint's replica read is the only one a view sees, so it is a MintRead.
  platform.replicaView = view as ReplicaView;
};

async function groupsOf(accountId: number, externalId: string) {
  const found = await rows<{ name: string }>(
    `SELECT g.name FROM embed_memberships m JOIN embed_groups g ON g.id = m.group_id
     JOIN embed_users u ON u.id = m.user_id WHERE u.account_id = ? AND u.external_id = ? ORDER BY g.name`,
    accountId,
    externalId,
  );
  return found.map((g) => g.name);
}

async function world() {
  const acme = await seedAccount({ useCreatorMode: true });
  for (const name of ['sales', 'support']) {
    expect((await api('POST', '/api/v1/groups', { auth: acme.admin, body: { name } })).status).toBe(200);
  }
  return { acme, dep: acme.deployments[0] };
}

describe('generate-session reads a replica and writes the primary', () => {
  it('a tenant deleted since the replica read is created again by the write, never left NULL', async () => {
    const { acme, dep } = await world();
    await mintOk(acme.key, { deploymentId: dep, externalId: 'tess', embedTenantName: 'tenant-x' });
    let seen: MintRead['head'] = null;
    staleReplica((read) => {
      seen = read.head;
      return read;
    });
    await mintOk(acme.key, { deploymentId: dep, externalId: 'tess', embedTenantName: 'tenant-x' });
    expect(seen).not.toBeNull();
    const deleted = await api('DELETE', '/api/v1/embed-tenants/tenant-x', { auth: acme.admin });
    expect(deleted.status).toBe(200);
    // The replica still shows the deleted tenant.
    staleReplica((read) => ({ ...read, head: seen }));
    const sid = await mintOk(acme.key, {
      deploymentId: dep,
      externalId: 'newcomer',
      embedTenantName: 'tenant-x',
      isEphemeral: true,
      creatorMode: true,
      groupDefinitions: [{ name: 'leaked' }],
    });
    expect(sid).toBeTruthy();
    const tenants = await rows<{ id: number }>(
      `SELECT id FROM embed_tenants WHERE account_id = ? AND name = 'tenant-x'`,
      acme.accountId,
    );
    expect(tenants).toHaveLength(1);
    // The creator-mode definition landed in the re-created tenant, not in the account-wide catalogue.
    const leaked = await rows<{ tenant_id: number | null }>(
      `SELECT tenant_id FROM embed_groups WHERE account_id = ? AND name = 'leaked'`,
      acme.accountId,
    );
    expect(leaked).toEqual([{ tenant_id: tenants[0]?.id }]);
    const stored = await mint(acme.key, {
      deploymentId: dep,
      externalId: 'stored',
      embedTenantName: 'tenant-x',
    });
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
  });

  it('a returning user whose state is unchanged is answered from the replica alone, with no write', async () => {
    const { acme, dep } = await world();
    const body = {
      deploymentId: dep,
      externalId: 'rita',
      groups: ['sales'],
      userProfile: { displayName: 'Rita' },
    };
    await mintOk(acme.key, body);
    const before = await embedState(acme.accountId);
    let replicaReads = 0;
    staleReplica((read) => {
      replicaReads += 1;
      return read;
    });
    const res = await mint(acme.key, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(replicaReads).toBe(1);
    expect(roundTrips(res)).toBe(1);
    expect(await embedState(acme.accountId)).toEqual(before);
    expect((await kvPayload(res.body.sessionId)).groups).toEqual(['sales']);
  });

  it('a key, group or user the replica has not seen yet is judged again on the primary, not refused', async () => {
    const { acme, dep } = await world();
    staleReplica((read) => ({ ...read, head: null, groups: [] }));
    const sid = await mintOk(acme.key, { deploymentId: dep, externalId: 'newkey', groups: ['support'] });
    expect(await groupsOf(acme.accountId, 'newkey')).toEqual(['support']);
    expect((await kvPayload(sid)).groups).toEqual(['support']);
    // A key the primary does not know either is still a 401.
    expectError(
      await mint({ apiKey: 'not-a-key' }, { deploymentId: dep, externalId: 'x' }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('a write planned from a stale user state aborts (stale_read), re-reads the primary once and lands right', async () => {
    const { acme, dep } = await world();
    await mintOk(acme.key, { deploymentId: dep, externalId: 'sam', groups: ['support'], userAttributes: [] });
    // The replica still shows sam without groups and under an older state.
    staleReplica((read) =>
      read.externalUser
        ? { ...read, externalUser: { ...read.externalUser, groups: [], fingerprint: 'older' } }
        : read,
    );
    const res = await mint(acme.key, {
      deploymentId: dep,
      externalId: 'sam',
      groups: ['sales', 'support'],
      userProfile: { displayName: 'Sam' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await groupsOf(acme.accountId, 'sam')).toEqual(['sales', 'support']);
    const payload = await kvPayload(res.body.sessionId);
    expect(payload.groups).toEqual(['sales', 'support']);
    expect(payload.user.displayName).toBe('Sam');
    // Replica read, aborted write, primary read, write.
    expect(roundTrips(res)).toBe(4);
  });

  it('a user the replica thinks new but the primary has is not created twice nor counted twice', async () => {
    const { acme, dep } = await world();
    await mintOk(acme.key, { deploymentId: dep, externalId: 'twice', userProfile: { displayName: 'T' } });
    staleReplica((read) => ({ ...read, externalUser: null }));
    const res = await mint(acme.key, {
      deploymentId: dep,
      externalId: 'twice',
      userProfile: { displayName: 'T' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [counted] = await rows<{ n: number; c: number }>(
      `SELECT external_user_count AS c, (SELECT count(*) FROM embed_users WHERE account_id = ?) AS n
       FROM accounts WHERE id = ?`,
      acme.accountId,
      acme.accountId,
    );
    expect(counted).toEqual({ n: 1, c: 1 });
  });

  it('the quota holds when the replica shows room the primary does not have', async () => {
    const { acme, dep } = await world();
    await api('PATCH', `/admin/v1/accounts/${acme.accountId}`, {
      auth: OPERATOR,
      body: { externalUserLimit: 1 },
    });
    await mintOk(acme.key, { deploymentId: dep, externalId: 'first' });
    staleReplica((read) => (read.head ? { ...read, head: { ...read.head, externalUserCount: 0 } } : read));
    const before = await embedState(acme.accountId);
    const refused = await mint(acme.key, { deploymentId: dep, externalId: 'second' });
    expectError(refused, 429, 'QUOTA_EXCEEDED');
    expect(refused.headers.get('retry-after')).not.toBeNull();
    expect(await embedState(acme.accountId)).toEqual(before);
  });

  it('`cannot change type` holds when the replica has not seen the definition', async () => {
    const { acme, dep } = await world();
    const creator = {
      deploymentId: dep,
      externalId: 'cm',
      creatorMode: true,
      embedTenantName: 'tenant-types',
    };
    await mintOk(acme.key, { ...creator, userAttributeDefinitions: [{ name: 'level', type: 'number' }] });
    staleReplica((read) => ({ ...read, attributes: [] }));
    const before = await embedState(acme.accountId);
    const refused = await mint(acme.key, {
      ...creator,
      userAttributeDefinitions: [{ name: 'level', type: 'string' }],
    });
    expectError(refused, 409, 'CONFLICT');
    expect(refused.body.error).toBe('cannot change type');
    expect(await embedState(acme.accountId)).toEqual(before);
  });
});

describe('a deleted API key under a stale replica', () => {
  it('cannot create or change a user: the primary write finds the key gone and the primary refuses', async () => {
    const { acme, dep } = await world();
    let seen: MintRead | undefined;
    staleReplica((read) => {
      seen ??= read;
      return read;
    });
    await mintOk(acme.scopedKey, { deploymentId: dep, externalId: 'before-delete' });
    await rows("DELETE FROM api_keys WHERE account_id = ? AND name = 'scoped'", acme.accountId);
    // The replica still has the key.
    staleReplica((read) => ({ ...read, head: seen?.head ?? null }));
    const before = await embedState(acme.accountId);
    const refused = await mint(acme.scopedKey, { deploymentId: dep, externalId: 'after-delete' });
    expectError(refused, 401, 'UNAUTHORIZED');
    expect(await embedState(acme.accountId)).toEqual(before);
  });
});
