import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { expectError, OPERATOR } from '../helpers/harness';
import { api } from '../helpers/http';
import { dbOf } from '../helpers/shards';

const MiB = 1024 * 1024;
const stored = (id: number) =>
  dbOf(id)
    .prepare('SELECT plan, stored_bytes_limit, session_rate_limit FROM accounts WHERE id = ?')
    .bind(id)
    .first();

describe('storedBytesLimit and sessionRateLimit', () => {
  it.each([
    ['free', 50 * MiB, 60],
    ['starter', 250 * MiB, 300],
    ['premium', 1024 * MiB, 1200],
    ['enterprise', 4096 * MiB, 6000],
  ])('default to the %s plan', async (plan, bytes, rate) => {
    const res = await api('POST', '/admin/v1/accounts', {
      auth: OPERATOR,
      body: { name: `P ${plan}`, plan },
    });
    expect(res.status).toBe(201);
    expect(res.body.account).toMatchObject({ plan, storedBytesLimit: bytes, sessionRateLimit: rate });
    expect(await stored(res.body.account.id)).toEqual({
      plan,
      stored_bytes_limit: bytes,
      session_rate_limit: rate,
    });
  });

  it('are set by the operator at provisioning and changed by PATCH', async () => {
    const res = await api('POST', '/admin/v1/accounts', {
      auth: OPERATOR,
      body: { name: 'Custom', plan: 'free', storedBytesLimit: 1000, sessionRateLimit: 5 },
    });
    expect(res.body.account).toMatchObject({ storedBytesLimit: 1000, sessionRateLimit: 5 });
    const id = res.body.account.id;
    const patched = await api('PATCH', `/admin/v1/accounts/${id}`, {
      auth: OPERATOR,
      body: { plan: 'enterprise', sessionRateLimit: 100 },
    });
    expect(patched.status).toBe(200);
    // A plan change keeps the stored limits the operator did not name.
    expect(patched.body).toMatchObject({ plan: 'enterprise', storedBytesLimit: 1000, sessionRateLimit: 100 });
    expect(await stored(id)).toEqual({
      plan: 'enterprise',
      stored_bytes_limit: 1000,
      session_rate_limit: 100,
    });
    expect((await api('GET', `/admin/v1/accounts/${id}`, { auth: OPERATOR })).body).toMatchObject({
      storedBytesLimit: 1000,
      sessionRateLimit: 100,
    });
  });

  it.each([
    [{ storedBytesLimit: -1 }, 'storedBytesLimit'],
    [{ storedBytesLimit: 1.5 }, 'storedBytesLimit'],
    [{ storedBytesLimit: 9 * 1024 ** 3 }, 'storedBytesLimit'],
    [{ sessionRateLimit: 0 }, 'sessionRateLimit'],
    [{ sessionRateLimit: '10' }, 'sessionRateLimit'],
  ])('refuse %j', async (body, path) => {
    const res = await api('POST', '/admin/v1/accounts', { auth: OPERATOR, body: { name: 'Bad', ...body } });
    expectError(res, 400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });
});

describe('the stranded-builds sweep', () => {
  it('reads only unfinished builds through their partial indexes', async () => {
    // The statement of findStrandedBuilds (deployments.repository.ts), kept in step with it.
    const plan = await env.DB.prepare(
      `EXPLAIN QUERY PLAN
      SELECT id FROM (SELECT id FROM builds WHERE status = 'queued' AND created_at < ? LIMIT ?)
      UNION ALL
      SELECT id FROM (SELECT id FROM builds WHERE status = 'building' AND started_at < ? LIMIT ?)`,
    )
      .bind('2026-01-01', 100, '2026-01-01', 100)
      .all<{ detail: string }>();
    const details = plan.results.map((r) => r.detail);
    expect(details.some((d) => d.includes('builds_queued_idx'))).toBe(true);
    expect(details.some((d) => d.includes('builds_building_idx'))).toBe(true);
    expect(details.filter((d) => /^SCAN builds\b/.test(d))).toEqual([]);
  });
});
