import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PreAggregationMessage } from '../../src/core/env';
import { cubeToken, deployModel, loadShopIntoStore } from '../data-api/fixtures';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { cronTick } from '../helpers/platform';
import { deploymentPolicy, userWithRole } from '../roles/fixtures';
import { deliverPreAggregations, freezeAccount, modelWithRollups, recordPreAggregations } from './fixtures';

/**
 * Cube's Orchestration API: `POST /cubejs-api/v1/pre-aggregations/jobs` with a deployment's Cube
 * API token, and the same operation for account users holding `PreAggregationBuild`.
 */

let acme: SeededAccount;
let deploymentId: number;
let token: string;
let sent: PreAggregationMessage[] = [];

function record() {
  sent = recordPreAggregations();
}

async function deliver(messages: PreAggregationMessage[]) {
  const result = await deliverPreAggregations(messages);
  expect(result.retryMessages).toEqual([]);
}

async function tick() {
  record();
  await cronTick();
  const out = sent;
  await deliver(out);
  return out;
}

const jobs = (body: unknown, auth: string = token) =>
  api('POST', '/cubejs-api/v1/pre-aggregations/jobs', { auth: { raw: auth }, body });

beforeAll(async () => {
  acme = await seedAccount();
  [deploymentId] = acme.deployments;
  await loadShopIntoStore(acme.admin, deploymentId);
  await deployModel(acme.admin, deploymentId, modelWithRollups());
  token = await cubeToken(acme.admin, deploymentId, {});
  // The plan registers the partitions; their first builds run too.
  await tick();
  await tick();
});

describe('POST /cubejs-api/v1/pre-aggregations/jobs', () => {
  it('builds the selected partitions now and answers each job by its token', async () => {
    record();
    const post = await jobs({
      action: 'post',
      selector: {
        contexts: [{ securityContext: {} }],
        timezones: ['UTC'],
        preAggregations: ['orders.monthly'],
      },
    });
    expect(post.status, JSON.stringify(post.body)).toBe(200);
    expect(post.body).toEqual([expect.stringMatching(/^\d+_2$/)]);
    expect(sent).toEqual([
      { kind: 'pre-aggregation-build', partitionId: expect.any(Number), version: 2, shard: 0 },
    ]);
    const [jobToken] = post.body as string[];
    const selector = {
      cubes: ['orders'],
      preAggregations: ['orders.monthly'],
      contexts: [],
      timezones: ['UTC'],
      dataSources: ['default'],
    };
    const queued = await jobs({ action: 'get', tokens: [jobToken, '99999_1', 'nonsense'] });
    expect(queued.status).toBe(200);
    expect(queued.body).toEqual({
      [jobToken as string]: {
        table: 'prod_pre_aggregations.orders_monthly20240101',
        status: 'scheduled',
        selector,
      },
      '99999_1': { table: '', status: 'missing_partition', selector: expect.any(Object) },
      nonsense: { table: '', status: 'missing_partition', selector: expect.any(Object) },
    });
    await deliver(sent);
    const done = await jobs({ action: 'get', tokens: [jobToken] });
    expect(done.body[jobToken as string].status).toBe('done');
    const listed = await api('GET', `/api/v1/deployments/${deploymentId}/pre-aggregations`, {
      auth: acme.admin,
    });
    expect(
      listed.body.items.find((p: { preAggregation: string }) => p.preAggregation === 'orders.monthly'),
    ).toMatchObject({
      state: 'built',
      version: 2,
      builtVersion: 2,
    });
  });

  it("refuses a selector that matches no pre-aggregation, an unknown zone, and another account's deployment", async () => {
    const none = await jobs({
      action: 'post',
      selector: { contexts: [{ securityContext: {} }], timezones: ['UTC'], cubes: ['users'] },
    });
    expectError(none, 400);
    expect(none.body.error).toContain("selector doesn't match any of the pre-aggregations");
    const zone = await jobs({
      action: 'post',
      selector: { contexts: [{ securityContext: {} }], timezones: ['Mars/Olympus'] },
    });
    expectError(zone, 400);
    const badAction = await jobs({ action: 'delete' });
    expectError(badAction, 400);
    const other = await seedAccount();
    const listed = await api('POST', `/api/v1/deployments/${deploymentId}/pre-aggregations/jobs`, {
      auth: other.admin,
      body: { action: 'get', tokens: ['1_1'] },
    });
    expectError(listed, 404, 'NOT_FOUND');
  });

  it('a new time zone joins the plan and is built once registered', async () => {
    record();
    const first = await jobs({
      action: 'post',
      selector: { contexts: [{ securityContext: {} }], timezones: ['Europe/Paris'], cubes: ['orders'] },
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual([]);
    await tick(); // the plan registers Europe/Paris
    record();
    const again = await jobs({
      action: 'post',
      selector: { contexts: [{ securityContext: {} }], timezones: ['Europe/Paris'], cubes: ['orders'] },
    });
    expect(again.body).toHaveLength(2);
    await deliver(sent);
    const statuses = await jobs({ action: 'get', tokens: again.body });
    expect(Object.values(statuses.body).map((s) => (s as { status: string }).status)).toEqual([
      'done',
      'done',
    ]);
  });
});

describe('the Orchestration API and an account move', () => {
  it('refuses to build for an account frozen by a move, whichever credential asks, and claims nothing', async () => {
    const before = await env.DB.prepare(
      'SELECT id, version FROM pre_aggregation_partitions WHERE deployment_id = ? ORDER BY id',
    )
      .bind(deploymentId)
      .all();
    const freeze = (at: string | null) => freezeAccount(acme.accountId, at);
    await freeze('2026-01-01T00:00:00.000Z');
    try {
      record();
      const post = await jobs({
        action: 'post',
        selector: { contexts: [{ securityContext: {} }], timezones: ['UTC'] },
      });
      expectError(post, 503, 'ACCOUNT_MOVING');
      expect(sent).toEqual([]);
      const after = await env.DB.prepare(
        'SELECT id, version FROM pre_aggregation_partitions WHERE deployment_id = ? ORDER BY id',
      )
        .bind(deploymentId)
        .all();
      expect(after.results).toEqual(before.results);
    } finally {
      await freeze(null);
    }
  });
});

describe('POST /api/v1/deployments/{id}/pre-aggregations/jobs', () => {
  it("needs Cube's PreAggregationBuild action: a member without it is refused, an admin builds", async () => {
    const body = { action: 'post', selector: { contexts: [{ securityContext: {} }], timezones: ['UTC'] } };
    const member = await api('POST', `/api/v1/deployments/${deploymentId}/pre-aggregations/jobs`, {
      auth: acme.member,
      body,
    });
    expectError(member, 403);
    // A role holding PreAggregationBuild on another deployment grants nothing here; on this one, it does.
    const elsewhere = await userWithRole(acme, [
      deploymentPolicy([acme.deployments[1]], 'PreAggregationBuild'),
    ]);
    const path = `/api/v1/deployments/${deploymentId}/pre-aggregations/jobs`;
    expectError(await api('POST', path, { auth: elsewhere.auth, body }), 403);
    const builder = await userWithRole(acme, [deploymentPolicy([deploymentId], 'PreAggregationBuild')]);
    record();
    const granted = await api('POST', path, { auth: builder.auth, body });
    expect(granted.status, JSON.stringify(granted.body)).toBe(200);
    expect(granted.body).toHaveLength(2);
    record();
    const admin = await api('POST', `/api/v1/deployments/${deploymentId}/pre-aggregations/jobs`, {
      auth: acme.admin,
      body,
    });
    expect(admin.status, JSON.stringify(admin.body)).toBe(200);
    expect(admin.body).toHaveLength(2);
    expect(sent).toHaveLength(2);
  });
});
