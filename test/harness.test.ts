import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { seedWorld } from './helpers/harness';
import { api } from './helpers/http';

describe('the test harness', () => {
  it('seeds two accounts whose credentials work', async () => {
    const { acme, other } = await seedWorld();
    expect(acme.accountId).not.toBe(other.accountId);
    const res = await api('GET', `/api/v1/deployments/${acme.deployments[0]}`, { auth: acme.member });
    expect(res.status).toBe(200);
    const rows = await env.DB.prepare('SELECT count(*) AS n FROM api_keys WHERE account_id = ?')
      .bind(acme.accountId)
      .first<{ n: number }>();
    expect(rows?.n).toBe(2);
  });
});
