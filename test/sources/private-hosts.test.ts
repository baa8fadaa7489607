import { connect } from 'cloudflare:sockets';
import { createExecutionContext, env, waitOnExecutionContext } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/core/env';
import { cubeToken, deployModel, shopModel } from '../data-api/fixtures';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { type ApiResponse, api } from '../helpers/http';
import { worker } from '../helpers/platform';

/**
 * The private-address rule as production runs it (DATA_SOURCES_ALLOW_PRIVATE unset, which the
 * test run otherwise sets), through the whole Worker, against a listener of this machine that
 * must never see a connection (test/global/trap.setup.ts).
 */

const trap = JSON.parse(env.TEST_TRAP) as {
  host: string;
  resolves: boolean;
  port: number;
  countPort: number;
};
const production = { ...(env as unknown as Bindings), DATA_SOURCES_ALLOW_PRIVATE: undefined } as Bindings;

/** The connections the trap has been offered so far. */
async function trapConnections(): Promise<number> {
  const socket = connect({ hostname: '127.0.0.1', port: trap.countPort });
  const reader = socket.readable.getReader();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  await socket.close();
  return Number(text);
}

/** `GET /cubejs-api/v1/load` through the Worker with the private-address rule on. */
async function loadInProduction(token: string): Promise<ApiResponse> {
  const query = new URLSearchParams({ query: JSON.stringify({ measures: ['orders.count'] }) });
  const ctx = createExecutionContext();
  const res = await worker.fetch(
    new Request(`http://edgeboard.test/cubejs-api/v1/load?${query}`, { headers: { authorization: token } }),
    production as never,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, headers: res.headers, body: await res.json() };
}

let acme: SeededAccount;
let deploymentId: number;
let token: string;

async function pointAt(host: string): Promise<void> {
  const res = await api('PUT', `/api/v1/deployments/${deploymentId}/env-vars`, {
    auth: acme.admin,
    body: {
      env_variables: [
        { name: 'CUBEJS_DB_TYPE', value: 'postgres' },
        { name: 'CUBEJS_DB_HOST', value: host },
        { name: 'CUBEJS_DB_PORT', value: String(trap.port) },
        { name: 'CUBEJS_DB_USER', value: 'reader' },
        { name: 'CUBEJS_DB_PASS', value: 'secret' },
      ],
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  acme = await seedAccount();
  deploymentId = acme.deployments[0];
  await deployModel(acme.admin, deploymentId, shopModel('shop.'));
  token = await cubeToken(acme.admin, deploymentId, { cubeCloud: { groups: ['managers'] } });
});

describe('a single-label data source host', () => {
  it('is refused like localhost, and the listener it names sees no connection', async () => {
    await pointAt('localhost');
    const local = await loadInProduction(token);
    expectError(local, 409);
    const before = await trapConnections();
    for (const host of [trap.host, 'db', 'postgres', 'VM.']) {
      await pointAt(host);
      const res = await loadInProduction(token);
      expectError(res, 409);
      // The same answer as for localhost: the rule's error, naming no address.
      expect(res.body.error, host).toBe(local.body.error);
      expect(res.body.error).not.toContain(trap.host);
    }
    expect(await trapConnections()).toBe(before);
  });

  it('is reached when the rule is lifted for local development', async () => {
    await pointAt(trap.host);
    const before = await trapConnections();
    // The test run lifts the rule (DATA_SOURCES_ALLOW_PRIVATE=1): the name is resolved and dialled.
    const res = await api(
      'GET',
      `/cubejs-api/v1/load?${new URLSearchParams({ query: '{"measures":["orders.count"]}' })}`,
      {
        auth: { raw: token },
      },
    );
    expect(res.status, JSON.stringify(res.body)).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(600);
    expect(res.body.code).not.toBe('CONFLICT');
    // This machine's own name reaches the listener wherever its resolver knows the name.
    if (trap.resolves) expect(await trapConnections()).toBeGreaterThan(before);
  });
});
