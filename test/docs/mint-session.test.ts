// The server-side quick start (sdk/examples/mint-session.ts) against the real Worker: its types
// match the server's schema, and its route mints a session the viewer's load accepts.
import { env } from 'cloudflare:test';
import type * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import {
  EdgeboardError,
  type EmbedSession,
  embedSessionRoute,
  type GenerateSessionRequest,
  mintEmbedSession,
} from '../../sdk/examples/mint-session';
import type { generateSessionBody, sessionCreatedSchema } from '../../src/embedding/embed-sessions.schemas';
import { publishDashboard } from '../embedding/fixtures';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { api, workerFetch } from '../helpers/http';

// Compile-time: the types the snippet derives through hc<AppType> are the route's valibot schemas
// (its request exactly what the server accepts, its answer what it sends), so a change in how
// AppType is built, or a route that stops declaring its body, shows here.
type ServerInput = v.InferInput<typeof generateSessionBody>;
const toServer = (r: GenerateSessionRequest): ServerInput => r;
// The server types securityContext's input as unknown (it checks for a plain object at run time);
// the snippet narrows it to an object, so that one field is compared one way only.
const fromServer = (
  r: Omit<ServerInput, 'securityContext'>,
): Omit<GenerateSessionRequest, 'securityContext'> => r;
const answer = (r: v.InferOutput<typeof sessionCreatedSchema>): EmbedSession => r;
void [toServer, fromServer, answer];

async function embeddable(account: SeededAccount) {
  const published = await publishDashboard(account);
  const patched = await api('PATCH', `/api/v1/embed/dashboard/${published.publicId}`, {
    auth: account.admin,
    body: { allowEmbed: true },
  });
  expect(patched.status).toBe(200);
  return published.publicId;
}

describe('server-side quick start', () => {
  it('answers the signed-in user a session the embed load accepts, and records the user', async () => {
    const account = await seedAccount();
    const publicId = await embeddable(account);
    const route = embedSessionRoute(
      {
        baseUrl: 'http://edgeboard.test/',
        apiKey: account.key.apiKey,
        deploymentId: account.deployments[0],
        fetch: workerFetch,
      },
      async (request) =>
        request.headers.get('cookie') === 'sid=ada'
          ? { id: ' Ada ', name: 'Ada Lovelace', email: 'ada@example.com' }
          : null,
    );

    const res = await route(
      new Request('https://customer.example/edgeboard-session', {
        method: 'POST',
        headers: { cookie: 'sid=ada' },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const session = (await res.json()) as EmbedSession;
    expect(session.sessionId).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(Date.parse(session.expiresAt)).toBeGreaterThan(Date.now());

    const load = await api('GET', `/api/v1/embed/dashboard/${publicId}`, {
      auth: { session: session.sessionId },
    });
    expect(load.status).toBe(200);
    expect(load.body.viewer).toMatchObject({ displayName: 'Ada Lovelace', initials: 'AL' });

    const stored = await env.DB.prepare('SELECT external_id, email FROM embed_users WHERE account_id = ?')
      .bind(account.accountId)
      .all();
    expect(stored.results).toEqual([{ external_id: 'ada', email: 'ada@example.com' }]);
  });

  it('answers 401 to a visitor who is not signed in, without minting', async () => {
    const account = await seedAccount();
    let calls = 0;
    const route = embedSessionRoute(
      {
        baseUrl: 'http://edgeboard.test',
        apiKey: account.key.apiKey,
        deploymentId: account.deployments[0],
        fetch: (input, init) => {
          calls += 1;
          return workerFetch(input, init);
        },
      },
      async () => null,
    );
    const res = await route(new Request('https://customer.example/edgeboard-session', { method: 'POST' }));
    expect(res.status).toBe(401);
    expect(calls).toBe(0);
  });

  it("throws edgeboard's refusal with its status and envelope", async () => {
    const account = await seedAccount();
    const other = await seedAccount();
    const config = {
      baseUrl: 'http://edgeboard.test',
      apiKey: account.key.apiKey,
      deploymentId: other.deployments[0],
      fetch: workerFetch,
    };
    const error = await mintEmbedSession(config, { externalId: 'ada' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EdgeboardError);
    expect((error as EdgeboardError).status).toBe(404);
    expect((error as EdgeboardError).body.code).toBe('NOT_FOUND');
  });
});
