import { describe, expect, it } from 'vitest';
import { seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { clockAt, cronTick, platform } from '../helpers/platform';
import { claimsOf, mintOk, rows } from './fixtures';

describe('revocation records', () => {
  it('are kept until the session would have expired, then the cron drops them', async () => {
    const acme = await seedAccount({ embedSessionTtlSeconds: 300 });
    const start = Date.parse('2026-11-22T08:00:00.000Z');
    platform.clock = clockAt(start);
    const sid = await mintOk(acme.key, { deploymentId: acme.deployments[0], externalId: 'purged' });
    const revoked = await api('POST', '/api/v1/embed/session/revoke', {
      auth: acme.key,
      body: { sessionId: sid },
    });
    expect(revoked.body).toEqual({ revoked: true });
    const record = () =>
      rows('SELECT session_id FROM embed_session_revocations WHERE session_id = ?', claimsOf(sid).jti);
    await cronTick(start + 299_000);
    expect(await record()).toHaveLength(1);
    await cronTick(start + 300_000);
    expect(await record()).toEqual([]);
  });
});
