import {
  createExecutionContext,
  createScheduledController,
  env,
  waitOnExecutionContext,
} from 'cloudflare:test';
import { afterEach, describe, expect, it } from 'vitest';
import { setClockForTests } from '../../src/core/clock';
import worker from '../../src/index';
import { seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { claimsOf, mintOk, rows } from './fixtures';

afterEach(() => setClockForTests(undefined));

async function tick(at: number) {
  const controller = createScheduledController({ scheduledTime: new Date(at), cron: '* * * * *' });
  const ctx = createExecutionContext();
  await worker.scheduled(controller, env, ctx);
  await waitOnExecutionContext(ctx);
}

describe('revocation records', () => {
  it('are kept until the session would have expired, then the cron drops them', async () => {
    const acme = await seedAccount({ embedSessionTtlSeconds: 300 });
    const start = Date.parse('2026-11-22T08:00:00.000Z');
    setClockForTests({ now: () => new Date(start) });
    const sid = await mintOk(acme.key, { deploymentId: acme.deployments[0], externalId: 'purged' });
    const revoked = await api('POST', '/api/v1/embed/session/revoke', {
      auth: acme.key,
      body: { sessionId: sid },
    });
    expect(revoked.body).toEqual({ revoked: true });
    const record = () =>
      rows('SELECT session_id FROM embed_session_revocations WHERE session_id = ?', claimsOf(sid).jti);
    await tick(start + 299_000);
    expect(await record()).toHaveLength(1);
    await tick(start + 300_000);
    expect(await record()).toEqual([]);
  });
});
