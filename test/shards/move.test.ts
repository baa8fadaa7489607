import { env } from 'cloudflare:test';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { shardOfSecret } from '../../src/auth/credentials';
import { shardOfPublicId } from '../../src/core/shard-marks';
import { shardDatabase, shardOfId } from '../../src/core/shards';
import { postOk, sessionOf } from '../comments/fixtures';
import { load as cubeLoad, cubeToken, deployModel, loadShopIntoStore } from '../data-api/fixtures';
import { load, mintOk, publishDashboard, setEmbed } from '../embedding/fixtures';
import { expectError, OPERATOR, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { platform } from '../helpers/platform';
import { checkShards } from '../helpers/shards';
import { seedDashboard } from '../notifications/fixtures';
import { consume, recordingPorts, tick } from '../notifications/ports';
import {
  deliverPreAggregations,
  modelWithRollups,
  recordPreAggregations,
  refreshAll,
} from '../pre-aggregations/fixtures';
import { assign, globalPolicy, newRole } from '../roles/fixtures';
import { folder, workbook } from '../workspace/helpers';
import {
  buildsSettled,
  deliverMoves,
  directory,
  driveMove,
  dumpAccount,
  moveOf,
  movesSent,
  recordMoves,
  resumeTick,
  rowCounts,
  startMove,
} from './move-fixtures';

// Five accounts: one per shard, and a second on shard 0 (placement fills the least-loaded shard
// first, the lowest on a tie). That one holds something in every kind of table and moves to
// shard 2; the first accounts of shards 0 and 2 watch.
let onShard: SeededAccount[];
let board: { publicId: string; id: number };
let viewer: string;
let rec: ReturnType<typeof recordingPorts>;

const account = (shard: number) => onShard[shard] as SeededAccount;
const mover = () => onShard[4] as SeededAccount;
const roundTrips = (res: { headers: Headers }) => Number(res.headers.get('x-d1-round-trips'));

/** The account's second deployment: a model with a rollup, built from its embedded store. */
const rollups = () => mover().deployments[1] as number;
const BY_STATUS = {
  measures: ['orders.count'],
  dimensions: ['orders.status'],
  order: { 'orders.status': 'asc' },
};
let fromSource: unknown;
/** Minted before the move: a revoked embed session, and a Cube API token. */
let revokedSession: string;
let tokenBefore: string;

/**
 * Runs the pre-aggregations' refresh until nothing is due: a tick of the cron, then the messages
 * it sent delivered to the queue consumer. The queue stays recorded for the whole file, so the
 * ticks of the tests below send nowhere real.
 */
async function refreshRollups(): Promise<void> {
  if (!(await refreshAll())) expect.fail('the refresh of pre-aggregations did not settle');
}

/** Everything a customer makes, through HTTP: workspace, dashboards, embedding, notifications, roles… */
async function seedEverything(a: SeededAccount): Promise<void> {
  const d = a.deployments[0];
  const ok = async (res: Promise<{ status: number; body: any }>) => {
    const answer = await res;
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body;
  };
  await ok(
    api('PUT', `/api/v1/deployments/${d}/env-vars`, {
      auth: a.admin,
      body: {
        env_variables: [
          { name: 'CUBEJS_DB_TYPE', value: 'postgres' },
          { name: 'API_SECRET', value: 's' },
        ],
      },
    }),
  );
  await ok(api('PUT', '/api/v1/tenant/settings', { auth: a.admin, body: { oidcEnabled: true } }));
  // An item made before the folder it goes into: the copy must not need folders first by id.
  const early = await workbook(a.admin, d, { name: 'Early' });
  const box = await folder(a.admin, d, { name: 'Box' });
  await ok(
    api('POST', `/api/v1/deployments/${d}/workspace/move`, {
      auth: a.admin,
      body: { id: early.id, folderId: box.id },
    }),
  );
  await ok(
    api('POST', `/api/v1/deployments/${d}/reports`, {
      auth: a.admin,
      body: { name: 'Orders', folderId: box.id },
    }),
  );
  await ok(api('PUT', `/api/v1/deployments/${d}/workbooks/${early.id}/favorite`, { auth: a.admin }));
  board = await publishDashboard(a);
  await setEmbed(a, board.publicId, { allowEmbed: true, allEmbedUsers: true });
  // Catalogues, embed users with groups and values, a tenant with a shared workbook.
  await ok(api('POST', '/api/v1/groups', { auth: a.admin, body: { name: 'editors' } }));
  const country = await ok(
    api('POST', '/api/v1/user-attributes', { auth: a.admin, body: { name: 'country', type: 'string' } }),
  );
  await ok(
    api('POST', '/api/v1/user-attribute-values', {
      auth: a.admin,
      body: { userId: String(a.memberUserId), userAttributeId: String(country.id), value: 'FR' },
    }),
  );
  viewer = await sessionOf(a, 'viewer', {
    groups: ['editors'],
    userAttributes: [{ name: 'country', value: 'FR' }],
  });
  await sessionOf(a, 'colleague');
  const colleague = await api('GET', `/api/v1/embed/dashboard/${board.publicId}/comments/mentionable-users`, {
    auth: { session: viewer },
  });
  expect(colleague.status, JSON.stringify(colleague.body)).toBe(200);
  const thread = await postOk(viewer, board.publicId, { body: `Look <@${colleague.body.items[0].id}>` });
  await postOk(viewer, board.publicId, { body: 'A reply', parentId: thread.id });
  const shared = await seedDashboard(a, 'For partners');
  await mintOk(a.key, { deploymentId: d, externalId: 'partner', embedTenantName: 'partners' });
  await ok(
    api('PUT', `/api/v1/deployments/${d}/workbooks/${shared.workbookId}/embed-access`, {
      auth: a.admin,
      body: { embedTenantName: 'partners', action: 'read' },
    }),
  );
  revokedSession = await mintOk(a.key, { deploymentId: d, externalId: 'leaver' });
  await ok(api('POST', '/api/v1/embed/session/revoke', { auth: a.key, body: { sessionId: revokedSession } }));
  const role = await newRole(a, [globalPolicy('WorkbookEdit', 'FolderEdit', 'ReportEdit')]);
  await assign(a, role, a.memberUserId);
  // A notification with a recipient and a delivered run.
  const base = `/api/v1/deployments/${d}/notifications`;
  const note = await ok(
    api('POST', base, {
      auth: a.admin,
      body: { dashboardId: board.id, scheduleType: 'DAILY', hour: 9, minute: 0 },
    }),
  );
  await ok(
    api('POST', `${base}/${note.id}/recipients`, {
      auth: a.admin,
      body: { recipients: [{ email: 'ops@example.com' }] },
    }),
  );
  const run = await api('POST', `${base}/${note.id}/run`, { auth: a.admin });
  expect(run.status, JSON.stringify(run.body)).toBe(202);
  expect((await consume(rec.queued.splice(0))).retryMessages).toEqual([]);
  // A published model with a rollup: its plan registers the partition, the refresh builds it.
  await deployRollup(a, rollups());
  tokenBefore = await cubeToken(a.admin, rollups(), { cubeCloud: { groups: ['managers'] } });
  const source = await cubeLoad(tokenBefore, BY_STATUS);
  expect(source.status, JSON.stringify(source.body)).toBe(200);
  expect(source.body.usedPreAggregations).toEqual({});
  fromSource = source.body.data;
  await refreshRollups();
  expect((await rollupList()).map((p) => [p.preAggregation, p.state])).toEqual([
    ['orders.by_status', 'built'],
  ]);
}

/** The shop in the deployment's store, and a published model with a rollup by status. */
async function deployRollup(a: SeededAccount, deploymentId: number): Promise<void> {
  await loadShopIntoStore(a.admin, deploymentId);
  await deployModel(
    a.admin,
    deploymentId,
    modelWithRollups(
      '',
      `    pre_aggregations:
      - name: by_status
        measures: [count]
        dimensions: [status]
`,
    ),
  );
}

async function rollupList(
  a: SeededAccount = mover(),
  deploymentId = rollups(),
): Promise<{ preAggregation: string; tableName: string; state: string; version: number }[]> {
  const res = await api('GET', `/api/v1/deployments/${deploymentId}/pre-aggregations`, { auth: a.admin });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.items;
}

beforeAll(async () => {
  rec = recordingPorts();
  platform.deliveryPorts = rec.ports;
  onShard = [];
  for (let i = 0; i < 5; i++) {
    onShard.push(
      await seedAccount({ useCreatorMode: true, allowedEmbedOrigins: [`https://host${i}.example.com`] }),
    );
  }
  expect(onShard.map((a) => shardOfId(a.accountId))).toEqual([0, 1, 2, 3, 0]);
  await seedEverything(mover());
  for (const a of onShard) await buildsSettled(shardOfId(a.accountId), a.accountId);
});

beforeEach(() => {
  movesSent.length = 0;
  recordMoves();
  rec = recordingPorts();
  platform.deliveryPorts = rec.ports;
});

describe('starting a move', () => {
  it('answers 404 for an unknown account, 400 for a shard that is not one, the same or a lower one, 401 without the operator', async () => {
    const id = mover().accountId;
    expectError(await startMove(999_999, 1), 404, 'NOT_FOUND');
    expectError(await startMove(id, 9), 400, 'BAD_REQUEST');
    expectError(await startMove(id, 0), 400, 'BAD_REQUEST');
    // Ids keep their range: a shard takes accounts from shards below it only.
    expectError(await startMove(account(3).accountId, 1), 400, 'BAD_REQUEST');
    expectError(await startMove(id, 'one'), 400, 'VALIDATION_FAILED');
    expectError(await startMove(id, -1), 400, 'VALIDATION_FAILED');
    expectError(
      await api('POST', `/admin/v1/accounts/${id}/move`, { auth: mover().admin, body: { shard: 1 } }),
      401,
    );
    expectError(await moveOf(id), 404, 'NOT_FOUND');
    expect(movesSent).toEqual([]);
    // Nothing was frozen: the account still writes.
    const res = await api('POST', `/api/v1/deployments/${mover().deployments[0]}/folders`, {
      auth: mover().admin,
      body: { name: 'Still writable' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });
});

describe('moving an account', () => {
  it('copies, verifies and switches with writes refused meanwhile; the old hints keep working', async () => {
    const a = mover();
    const d = a.deployments[0];
    const before = await dumpAccount(0, a.accountId);
    // Every kind of table holds something of the account, except the ones left empty by design here.
    const empty = Object.entries(before)
      .filter(([, rows]) => rows.length === 0)
      .map(([table]) => table);
    expect(empty.sort()).toEqual(
      [
        'dashboard_exports',
        'model_upload_files',
        'model_uploads',
        'report_snapshots',
        'snapshot_contents',
        'workspace_views',
      ].sort(),
    );
    const bystanders = {
      0: await dumpAccount(0, account(0).accountId),
      2: await dumpAccount(2, account(2).accountId),
    };
    const loads = (await directory(a.accountId)).loads;

    const started = await startMove(a.accountId, 2);
    expect(started.status, JSON.stringify(started.body)).toBe(202);
    expect(started.body).toMatchObject({
      accountId: a.accountId,
      fromShard: 0,
      toShard: 2,
      state: 'freezing',
      finishedAt: null,
    });
    expectError(await startMove(a.accountId, 3), 409, 'CONFLICT');

    // Frozen: writes of every credential are refused with Retry-After; reads go on.
    const refused = [
      await api('POST', `/api/v1/deployments/${d}/folders`, { auth: a.admin, body: { name: 'x' } }),
      await api('POST', `/api/v1/deployments/${d}/folders`, { auth: a.key, body: { name: 'x' } }),
      await api('POST', '/api/v1/embed/generate-session', {
        auth: a.key,
        body: { deploymentId: d, externalId: 'new' },
      }),
      await api('POST', `/api/v1/embed/dashboard/${board.publicId}/comments`, {
        auth: { session: viewer },
        body: { body: 'during the move' },
      }),
      await api('PATCH', `/admin/v1/accounts/${a.accountId}`, { auth: OPERATOR, body: { name: 'Renamed' } }),
    ];
    for (const res of refused) {
      expectError(res, 503, 'ACCOUNT_MOVING');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    expect((await api('GET', `/api/v1/deployments/${d}/workspace`, { auth: a.member })).status).toBe(200);
    expect((await api('GET', `/admin/v1/accounts/${a.accountId}`, { auth: OPERATOR })).status).toBe(200);
    expect((await load(board.publicId, viewer)).status).toBe(200);
    // The cron claims no run of a frozen account: its notification stays due.
    const due = new Date(Date.now() + 3 * 86_400_000).toISOString();
    await tick(due);
    expect(rec.queued).toEqual([]);
    expect((await dumpAccount(0, a.accountId)).notification_runs).toEqual(before.notification_runs);

    // Copy until verification starts, delivering one copying step twice: nothing is doubled.
    await driveMove(a.accountId, (m) => m.state === 'copying');
    const step = movesSent[0];
    if (!step) throw new Error('no copying step enqueued');
    await deliverMoves([step]);
    const redelivered = await deliverMoves([step]);
    expect(redelivered.explicitAcks).toHaveLength(1);
    movesSent.splice(0, movesSent.length - 1);

    const done = await driveMove(a.accountId);
    expect(done).toMatchObject({ state: 'done', error: null, finishedAt: expect.any(String) });
    for (const t of done.tables) {
      expect(t.source, t.table).toBe(before[t.table]?.length);
      expect(t.target, t.table).toBe(t.source);
      // A thread's replies go with their root (ON DELETE CASCADE), not by a delete of their own.
      if (t.table === 'dashboard_comments') expect(t.deleted).toBe(t.source - 1);
      else expect(t.deleted, t.table).toBe(t.source);
    }

    // Every row is on the target with its ids and content; the source holds none.
    expect(await dumpAccount(2, a.accountId)).toEqual(before);
    expect(Object.values(await rowCounts(0, a.accountId)).every((n) => n === 0)).toBe(true);
    expect(await directory(a.accountId)).toEqual({
      shard: 2,
      loads: { ...loads, 0: (loads[0] ?? 0) - 1, 2: (loads[2] ?? 0) + 1 },
    });
    // The other accounts of both shards are untouched.
    expect(await dumpAccount(0, account(0).accountId)).toEqual(bystanders[0]);
    expect(await dumpAccount(2, account(2).accountId)).toEqual(bystanders[2]);

    // Hints issued before the move name shard 0 (made before sharding, they would too), and reach
    // shard 2 through its forwards.
    expect(shardOfSecret(a.key.apiKey)).toBe(0);
    const listed = await api('GET', '/api/v1/deployments', { auth: a.key });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((x: { id: number }) => x.id).sort()).toEqual([...a.deployments].sort());
    expect((await api('GET', `/api/v1/users/${a.memberUserId}`, { auth: a.member })).status).toBe(200);
    expect((await load(board.publicId, viewer)).status).toBe(200);
    expect(shardOfPublicId(board.publicId)).toBe(0);
    const page = await api('GET', `/embed/dashboard/${board.publicId}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain(
      'frame-ancestors https://host4.example.com',
    );
    // A Cube API token and an embed session name the account itself, on routes without a public
    // id: the account's forward finds it (its key is the id as text, however D1 binds a number).
    expect(
      await shardDatabase(env, 0)
        .prepare("SELECT key FROM forwards WHERE kind = 'account' AND account_id = ?")
        .bind(a.accountId)
        .all(),
    ).toMatchObject({ results: [{ key: String(a.accountId) }] });
    const meta = await api('GET', '/cubejs-api/v1/meta', { auth: { raw: tokenBefore } });
    expect(meta.status, JSON.stringify(meta.body)).toBe(200);
    const sharedItems = await api('GET', `/api/v1/deployments/${d}/shared-workspace`, {
      auth: { session: viewer },
    });
    expect(sharedItems.status, JSON.stringify(sharedItems.body)).toBe(200);
    // The session/token exchange reads the revocations where the account lives now.
    const exchange = (sessionId: string) =>
      api('POST', '/api/v1/embed/session/token', { body: { sessionId } });
    expectError(await exchange(revokedSession), 401, 'SESSION_REVOKED');
    expect((await exchange(viewer)).status).toBe(200);
    // A forward costs its lookup after the miss; the request then runs as on its own shard.
    const fresh = await api('POST', '/api/v1/api-keys', { auth: a.admin, body: { name: 'after the move' } });
    expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
    expect(shardOfSecret(fresh.body.key), 'new key').toBe(2);
    const direct = await api('GET', `/api/v1/deployments/${d}`, { auth: { apiKey: fresh.body.key } });
    const forwarded = await api('GET', `/api/v1/deployments/${d}`, { auth: a.key });
    expect(forwarded.body).toEqual(direct.body);
    expect(roundTrips(forwarded), 'round trips').toBe(roundTrips(direct) + 2);

    // Writes work again, through the old credentials too; new ids are in shard 2's range.
    const created = await api('POST', `/api/v1/deployments/${d}/folders`, {
      auth: a.key,
      body: { name: 'After' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(shardOfId(created.body.id), 'new folder').toBe(2);
    const comment = await postOk(viewer, board.publicId, { body: 'after the move' });
    expect(shardOfId(comment.id), 'new comment').toBe(2);
    const session = await mintOk(a.key, { deploymentId: d, externalId: 'after' });
    expect((await load(board.publicId, session)).status).toBe(200);
    // The rollup's partition is listed where the account lives now, and still answers a query.
    const rollup = await rollupList();
    expect(rollup.map((p) => [p.preAggregation, p.tableName, p.state])).toEqual([
      ['orders.by_status', 'prod_pre_aggregations.orders_by_status', 'built'],
    ]);
    const token = await cubeToken(a.admin, rollups(), { cubeCloud: { groups: ['managers'] } });
    const served = await cubeLoad(token, BY_STATUS);
    expect(served.status, JSON.stringify(served.body)).toBe(200);
    expect(served.body.data).toEqual(fromSource);
    expect(Object.keys(served.body.usedPreAggregations)).toEqual(['prod_pre_aggregations.orders_by_status']);
    expect(await checkShards()).toEqual([]);
    // The notification left due is claimed where the account lives now.
    await tick(due);
    expect(rec.queued.map(shardOfId)).toEqual([2]);

    // Moved again (2 → 3), once that run is delivered. The tick three days ahead purged the
    // revocation above with the expiry it recorded, so a session of shard 0 is revoked now: its
    // exchange is followed hop by hop (0 → 2 → 3) to the one shard that holds the record.
    expect((await consume(rec.queued.splice(0))).retryMessages).toEqual([]);
    expect((await exchange(viewer)).status).toBe(200);
    const revoke = await api('POST', '/api/v1/embed/session/revoke', {
      auth: a.key,
      body: { sessionId: viewer },
    });
    expect(revoke.body).toEqual({ revoked: true });
    expect((await startMove(a.accountId, 3)).status).toBe(202);
    expect(await driveMove(a.accountId)).toMatchObject({ state: 'done', error: null });
    expectError(await exchange(viewer), 401, 'SESSION_REVOKED');
    // Every other hint from before the first move is run again hop by hop too: 0 → 2 → 3.
    const keyed = await api('GET', `/api/v1/deployments/${d}`, { auth: a.key });
    expect(keyed.status, JSON.stringify(keyed.body)).toBe(200);
    const twiceMeta = await api('GET', '/cubejs-api/v1/meta', { auth: { raw: tokenBefore } });
    expect(twiceMeta.status, JSON.stringify(twiceMeta.body)).toBe(200);
    expect((await api('GET', `/embed/dashboard/${board.publicId}`)).status).toBe(200);
  });
});

describe('a move whose step was lost', () => {
  it('is enqueued again by the five-minute trigger, and finishes', async () => {
    const a = account(0);
    expect((await startMove(a.accountId, 1)).status).toBe(202);
    const lost = movesSent.splice(0);
    expect(lost).toHaveLength(1);
    // Not yet stalled: nothing is sent again.
    await resumeTick(new Date());
    expect(movesSent).toEqual([]);
    await resumeTick(new Date(Date.now() + 6 * 60_000));
    expect(movesSent).toEqual(lost);
    expect(await driveMove(a.accountId)).toMatchObject({ state: 'done', fromShard: 0, toShard: 1 });
    expect((await directory(a.accountId)).shard).toBe(1);
    expect((await api('GET', '/api/v1/deployments', { auth: a.key })).status).toBe(200);
  });
});

describe('a move that fails verification', () => {
  it('is rolled back: the source untouched and unfrozen, the copied rows removed', async () => {
    const a = account(1);
    const before = await dumpAccount(1, a.accountId);
    const loads = await directory(a.accountId);
    expect((await startMove(a.accountId, 3)).status).toBe(202);
    await driveMove(a.accountId, (m) => m.state === 'verifying');
    // A row that changed on the target behind the move's back.
    await shardDatabase(env, 3)
      .prepare("UPDATE users SET first_name = 'tampered' WHERE id = ?")
      .bind(a.adminUserId)
      .run();
    const failed = await driveMove(a.accountId);
    expect(failed).toMatchObject({ state: 'failed', finishedAt: expect.any(String) });
    expect(failed.error).toContain('users');
    expect(Object.values(await rowCounts(3, a.accountId)).every((n) => n === 0)).toBe(true);
    expect(await dumpAccount(1, a.accountId)).toEqual(before);
    expect(await directory(a.accountId)).toEqual(loads);
    const res = await api('POST', `/api/v1/deployments/${a.deployments[0]}/folders`, {
      auth: a.admin,
      body: { name: 'writable again' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // The failed move is finished: another may start, and this one goes through.
    const again = await dumpAccount(1, a.accountId);
    expect((await startMove(a.accountId, 3)).status).toBe(202);
    expect(await driveMove(a.accountId)).toMatchObject({ state: 'done', error: null });
    expect(await dumpAccount(3, a.accountId)).toEqual(again);
  });
});

describe('a move that cannot start', () => {
  it('answers 409 and leaves the account as it was when its shard has it frozen already', async () => {
    const a = account(2);
    const shard = shardDatabase(env, 2);
    await shard
      .prepare("UPDATE accounts SET frozen_at = '2026-01-01T00:00:00.000Z' WHERE id = ?")
      .bind(a.accountId)
      .run();
    try {
      expectError(await startMove(a.accountId, 3), 409, 'CONFLICT');
      expect((await moveOf(a.accountId)).body).toMatchObject({
        state: 'failed',
        error: 'The account was frozen already on its shard',
        finishedAt: expect.any(String),
      });
      expect(movesSent).toEqual([]);
      const frozen = await shard
        .prepare('SELECT frozen_at FROM accounts WHERE id = ?')
        .bind(a.accountId)
        .first();
      expect(frozen).toEqual({ frozen_at: '2026-01-01T00:00:00.000Z' });
    } finally {
      await shard.prepare('UPDATE accounts SET frozen_at = NULL WHERE id = ?').bind(a.accountId).run();
    }
  });
});

describe('a move while a rollup builds', () => {
  it('waits until the build is done, then copies the partition as built', async () => {
    const b = await seedAccount();
    const from = shardOfId(b.accountId);
    expect(from).toBeLessThan(3);
    const deploymentId = b.deployments[0] as number;
    await deployRollup(b, deploymentId);
    await refreshRollups();
    await buildsSettled(from, b.accountId);
    // A build claimed through the Orchestration API, its message not delivered yet.
    const sent = recordPreAggregations();
    const claimed = await api('POST', `/api/v1/deployments/${deploymentId}/pre-aggregations/jobs`, {
      auth: b.admin,
      body: { action: 'post', selector: { contexts: [{ securityContext: {} }], timezones: ['UTC'] } },
    });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    expect(sent).toHaveLength(1);
    expect((await rollupList(b, deploymentId)).map((p) => [p.state, p.version])).toEqual([['queued', 2]]);

    expect((await startMove(b.accountId, 3)).status).toBe(202);
    // Its first step finds the build in flight: the move waits, frozen, and looks again later.
    await deliverMoves(movesSent.splice(0));
    expect((await moveOf(b.accountId)).body).toMatchObject({ state: 'freezing', tables: [] });
    expect(movesSent).toHaveLength(1);
    // The build runs on the account's shard while it is frozen; the move then goes through.
    const built = await deliverPreAggregations(sent);
    expect(built.explicitAcks).toHaveLength(1);
    expect(await driveMove(b.accountId)).toMatchObject({ state: 'done', error: null });
    expect((await directory(b.accountId)).shard).toBe(3);
    expect((await rowCounts(3, b.accountId)).pre_aggregation_partitions).toBe(1);
    expect((await rollupList(b, deploymentId)).map((p) => [p.state, p.version])).toEqual([['built', 2]]);
    // A build claimed where the account lives now is built there, though the partition's id is in
    // the old shard's range: its message names the shard.
    sent.splice(0);
    const again = await api('POST', `/api/v1/deployments/${deploymentId}/pre-aggregations/jobs`, {
      auth: b.admin,
      body: { action: 'post', selector: { contexts: [{ securityContext: {} }], timezones: ['UTC'] } },
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(sent.map((m) => m.shard)).toEqual([3]);
    expect((await deliverPreAggregations(sent)).explicitAcks).toHaveLength(1);
    expect((await rollupList(b, deploymentId)).map((p) => [p.state, p.version])).toEqual([['built', 3]]);
  });
});
