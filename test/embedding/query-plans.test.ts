import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { recordStatements, stopRecording } from '../../src/core/db';
import { seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';

const EMBED_TABLES = [
  'embed_tenants',
  'embed_groups',
  'embed_attributes',
  'embed_users',
  'embed_memberships',
  'embed_attribute_values',
  'embed_session_revocations',
];

async function planOf(query: string, ...binds: unknown[]): Promise<string> {
  const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${query}`)
    .bind(...binds)
    .all<{ detail: string }>();
  return results.map((r) => r.detail).join('\n');
}

/** A full scan of a tenant table: `SCAN <table>` without an index (json_each is not a table). */
const fullScan = (plan: string) =>
  plan.split('\n').some((line) => /^SCAN (?!json_each)\w+( AS \w+)?$/.test(line.trim()));

describe('embedding statements are index-served', () => {
  it('every foreign-key child column of the embedding tables has an index (cascades never scan)', async () => {
    for (const table of EMBED_TABLES) {
      const { results: fks } = await env.DB.prepare(`SELECT "from" FROM pragma_foreign_key_list(?)`)
        .bind(table)
        .all<{ from: string }>();
      expect(fks.length).toBeGreaterThan(0);
      for (const { from } of fks) {
        const plan = await planOf(`SELECT 1 FROM ${table} WHERE ${from} = ?`, 1);
        expect(fullScan(plan), `${table}.${from}: ${plan}`).toBe(false);
      }
    }
  });

  it('the quota guard and the mint read touch one row each, whatever the account size', async () => {
    const guard = await planOf(
      `SELECT 'quota_exceeded' FROM accounts a WHERE a.id = ? AND 1 > 0
        AND a.external_user_count + 1 > a.external_user_limit LIMIT 1`,
      1,
    );
    expect(guard).toMatch(/SEARCH a USING INTEGER PRIMARY KEY/);
    const statements = [
      `SELECT k.id, a.external_user_count FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.key_hash = 'h'`,
      `SELECT id FROM embed_tenants WHERE account_id = 1 AND name = 'default'`,
      `SELECT id FROM embed_users WHERE tenant_id = 1 AND external_id = 'x'`,
      `SELECT g.id FROM embed_groups g WHERE g.account_id = 1 AND g.tenant_id IS NULL
        AND g.name IN (SELECT value FROM json_each('["a"]'))`,
      `SELECT a.id FROM embed_attributes a WHERE a.account_id = 1 AND a.tenant_id = 2
        AND a.name IN (SELECT value FROM json_each('["a"]'))`,
      `SELECT session_id FROM embed_session_revocations WHERE session_id = 's'`,
    ];
    for (const statement of statements) {
      const plan = await planOf(statement);
      expect(fullScan(plan), `${statement}: ${plan}`).toBe(false);
    }
  });
});

describe('provisionEmbedUsers statements are index-served', () => {
  it('its read and write batches scan no embedding table', async () => {
    const account = await seedAccount();
    const auth = { bearer: account.key.apiKey };
    const tenant = 'plan-provisioned';
    expect(
      (await api('POST', `/api/v1/embed-tenants/${tenant}/groups`, { auth, body: { name: 'g1' } })).status,
    ).toBe(200);
    expect((await api('POST', '/api/v1/groups', { auth: account.admin, body: { name: 'all' } })).status).toBe(
      200,
    );
    const log = recordStatements();
    try {
      const res = await api('POST', `/api/v1/embed-tenants/${tenant}/users`, {
        auth,
        body: {
          users: [
            { externalId: 'p1', email: 'p1@example.com', groups: ['all'], tenantGroups: ['g1'] },
            { externalId: 'p2', groups: [], tenantGroups: [], userProfile: { displayName: 'P' } },
          ],
        },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.failed).toEqual([]);
    } finally {
      stopRecording();
    }
    const ours = log.filter((s) => /embed_/.test(s.sql));
    expect(ours.length).toBeGreaterThan(5);
    for (const statement of ours) {
      const plan = await planOf(statement.sql, ...statement.params);
      // Any table (aliases included) read without an index; json_each is a virtual table.
      const scans = plan
        .split('\n')
        .filter((line) => /^SCAN /.test(line.trim()) && !/VIRTUAL TABLE|USING (COVERING )?INDEX/.test(line));
      expect(scans, `${statement.sql}\n${plan}`).toEqual([]);
    }
  });
});
