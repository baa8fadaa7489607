import { describe, expect, it } from 'vitest';
import { seedAccount } from '../helpers/harness';
import { type ApiResponse, api } from '../helpers/http';
import { dbOf } from '../helpers/shards';
import { mint } from './fixtures';

/**
 * Generate-session is the hot path: what it reads must not grow with the account's catalogue.
 * The same mints run against a catalogue of 10 groups and of 2,010; D1 counts the rows each reads.
 */
const rowsRead = (res: ApiResponse) => Number(res.headers.get('x-d1-rows-read'));

async function mintRowsRead(extraGroups: number) {
  const acme = await seedAccount();
  const dep = acme.deployments[0];
  for (const name of ['sales', 'support', 'ops']) {
    expect((await api('POST', '/api/v1/groups', { auth: acme.admin, body: { name } })).status).toBe(200);
  }
  await dbOf(acme.accountId)
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO embed_groups (account_id, tenant_id, name, description, created_at, updated_at)
     SELECT ?, NULL, 'bulk-' || i, '', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM n`,
    )
    .bind(extraGroups, acme.accountId)
    .run();
  const body = (groups: string[]) => ({ deploymentId: dep, externalId: 'rita', groups });
  const first = await mint(acme.key, body(['sales', 'support']));
  const returning = await mint(acme.key, body(['sales', 'support']));
  const changed = await mint(acme.key, body(['sales', 'ops']));
  for (const res of [first, returning, changed]) expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { first: rowsRead(first), returning: rowsRead(returning), changed: rowsRead(changed) };
}

describe('generate-session reads the same rows whatever the catalogue’s size', () => {
  it('a new, a returning and a changed user read no more rows with 2,010 groups than with 10', async () => {
    const small = await mintRowsRead(7);
    const large = await mintRowsRead(2007);
    expect(small.returning).toBeGreaterThan(0);
    // A few rows of slack (which index pages a probe touches varies); a walk of the catalogue
    // would add thousands.
    for (const step of ['first', 'returning', 'changed'] as const) {
      expect(large[step], step).toBeLessThanOrEqual(small[step] + 5);
    }
  });
});
