import { beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToCube } from '../cube/cube-openapi';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import {
  editComment,
  embeddableBoard,
  embedUserId,
  listThreads,
  mentionable,
  mintOk,
  postComment,
  postOk,
  publishDashboard,
  removeComment,
  resolveThread,
  rows,
  sessionOf,
  setEmbed,
  storedComments,
} from './fixtures';

// Every answer of Cube's comment operations is held to Cube's response schema too.
holdAnswersToCube();

let acme: SeededAccount;
let other: SeededAccount;
let board: { id: number; publicId: string };
let otherBoard: { id: number; publicId: string };
let alice: string;
let carol: string;
let thread: any;

beforeAll(async () => {
  acme = await seedAccount();
  other = await seedAccount();
  board = await embeddableBoard(acme);
  otherBoard = await embeddableBoard(other);
  alice = await sessionOf(acme, 'alice');
  // Same dashboard, same account, another embed tenant.
  carol = await sessionOf(acme, 'carol', { embedTenantName: 'customer-b' });
  thread = await postOk(alice, board.publicId, { body: 'Tenant A only' });
});

describe('embed tenants', () => {
  it("keep separate conversations on the same dashboard: another tenant's comments are 404", async () => {
    expect((await listThreads(carol, board.publicId)).body.items).toEqual([]);
    const own = await postOk(carol, board.publicId, { body: 'Tenant B here' });
    const aliceView = (await listThreads(alice, board.publicId)).body.items.map((t: any) => t.root.id);
    expect(aliceView).toContain(thread.id);
    expect(aliceView).not.toContain(own.id);
    const [row] = await rows('SELECT tenant_id FROM dashboard_comments WHERE id = ?', own.id);
    const [tenant] = await rows<{ id: number }>(
      "SELECT id FROM embed_tenants WHERE account_id = ? AND name = 'customer-b'",
      acme.accountId,
    );
    expect(row).toEqual({ tenant_id: tenant?.id });

    const before = await storedComments(board.id);
    expectError(
      await postComment(carol, board.publicId, { body: 'x', parentId: thread.id }),
      404,
      'NOT_FOUND',
    );
    expectError(await editComment(carol, board.publicId, thread.id, { body: 'x' }), 404, 'NOT_FOUND');
    expectError(await removeComment(carol, board.publicId, thread.id), 404, 'NOT_FOUND');
    expectError(await resolveThread(carol, board.publicId, thread.id, { resolved: true }), 404, 'NOT_FOUND');
    expect(await storedComments(board.id)).toEqual(before);
  });

  it('list only their own users as mentionable', async () => {
    const names = (await mentionable(carol, board.publicId)).body.items.map((u: any) => u.username);
    expect(names).not.toContain('alice');
    const aliceNames = (await mentionable(alice, board.publicId)).body.items.map((u: any) => u.username);
    expect(aliceNames).not.toContain('carol');
  });
});

describe('accounts', () => {
  it("answer 404 for another account's dashboard and comment ids", async () => {
    const stranger = await sessionOf(other, 'stranger');
    const theirs = await postOk(stranger, otherBoard.publicId, { body: 'Other account' });
    expectError(await listThreads(stranger, board.publicId), 404, 'NOT_FOUND');
    expectError(await postComment(stranger, board.publicId, { body: 'x' }), 404, 'NOT_FOUND');
    expectError(await mentionable(stranger, board.publicId), 404, 'NOT_FOUND');
    expectError(await editComment(stranger, board.publicId, thread.id, { body: 'x' }), 404, 'NOT_FOUND');
    // acme's session on the other account's dashboard, and on its comment.
    expectError(await listThreads(alice, otherBoard.publicId), 404, 'NOT_FOUND');
    expectError(await editComment(alice, otherBoard.publicId, theirs.id, { body: 'x' }), 404, 'NOT_FOUND');
    expectError(await removeComment(alice, board.publicId, theirs.id), 404, 'NOT_FOUND');
    expectError(
      await postComment(alice, board.publicId, { body: 'x', parentId: theirs.id }),
      404,
      'NOT_FOUND',
    );
    const [row] = await rows('SELECT body, removed_at FROM dashboard_comments WHERE id = ?', theirs.id);
    expect(row).toEqual({ body: 'Other account', removed_at: null });
  });
});

describe('what a session grants', () => {
  it('a session limited to another dashboard, or minted for another deployment, sees no comments here', async () => {
    const elsewhere = await embeddableBoard(acme);
    const pinned = await mintOk(acme.key, {
      deploymentId: acme.deployments[0],
      externalId: 'alice',
      publicDashboardId: elsewhere.publicId,
    });
    expect((await listThreads(pinned, elsewhere.publicId)).status).toBe(200);
    expectError(await listThreads(pinned, board.publicId), 404, 'NOT_FOUND');
    expectError(await postComment(pinned, board.publicId, { body: 'x' }), 404, 'NOT_FOUND');
    expectError(await editComment(pinned, board.publicId, thread.id, { body: 'x' }), 404, 'NOT_FOUND');
    const staging = await mintOk(acme.key, { deploymentId: acme.deployments[1], externalId: 'alice' });
    expectError(await listThreads(staging, board.publicId), 404, 'NOT_FOUND');
    expectError(await removeComment(staging, board.publicId, thread.id), 404, 'NOT_FOUND');
    const [row] = await rows('SELECT body, removed_at FROM dashboard_comments WHERE id = ?', thread.id);
    expect(row).toEqual({ body: 'Tenant A only', removed_at: null });
  });

  it('nothing while embedding is disabled (403 EMBED_DISABLED), unless shared with all embed users', async () => {
    const closed = await publishDashboard(acme);
    expectError(await listThreads(alice, closed.publicId), 403, 'EMBED_DISABLED');
    expectError(await postComment(alice, closed.publicId, { body: 'x' }), 403, 'EMBED_DISABLED');
    expect(await storedComments(closed.id)).toEqual([]);
    await setEmbed(acme, closed.publicId, { allEmbedUsers: true });
    expect((await postComment(alice, closed.publicId, { body: 'Shared' })).status).toBe(200);
  });

  it('nothing once the session is revoked or for an unpublished dashboard', async () => {
    const session = await sessionOf(acme, 'dave');
    const own = await postOk(session, board.publicId, { body: 'Before revocation' });
    const revoked = await api('POST', '/api/v1/embed/session/revoke', {
      auth: acme.key,
      body: { sessionId: session },
    });
    expect(revoked.status).toBe(200);
    expectError(await listThreads(session, board.publicId), 401, 'SESSION_REVOKED');
    expectError(await removeComment(session, board.publicId, own.id), 401, 'SESSION_REVOKED');
    expectError(await listThreads(alice, 'no-such-dashboard'), 404, 'NOT_FOUND');
    expectError(await postComment(alice, 'no-such-dashboard', { body: 'x' }), 404, 'NOT_FOUND');
  });
});

describe('cascades', () => {
  it("keep a deleted user's comments without an author; deleting the tenant or the workbook deletes them", async () => {
    const dashboard = await embeddableBoard(acme);
    const erin = await sessionOf(acme, 'erin', { embedTenantName: 'customer-c' });
    const frank = await sessionOf(acme, 'frank', { embedTenantName: 'customer-c' });
    const frankId = await embedUserId(acme, 'frank', 'customer-c');
    const root = await postOk(frank, dashboard.publicId, { body: 'Frank started this' });
    await postOk(erin, dashboard.publicId, { body: `Agreed <@${frankId}>`, parentId: root.id });
    await api('POST', '/api/v1/embed/session/revoke', { auth: acme.key, body: { sessionId: frank } });
    // Removing frank from the tenant: provisioning cannot delete, so delete the row as an admin would.
    await rows('DELETE FROM embed_users WHERE id = ?', frankId);
    const [t] = (await listThreads(erin, dashboard.publicId)).body.items;
    expect(t.root).toMatchObject({ userId: null, author: null, isOwn: false, body: 'Frank started this' });
    expect(t.replies[0].mentions).toEqual([]);

    const deleted = await api('DELETE', '/api/v1/embed-tenants/customer-c', { auth: acme.admin });
    expect(deleted.status).toBe(200);
    expect(await storedComments(dashboard.id)).toEqual([]);

    const another = await postOk(alice, dashboard.publicId, { body: 'Until the workbook goes' });
    const [workbook] = await rows<{ workbook_id: number }>(
      'SELECT workbook_id FROM published_dashboards WHERE id = ?',
      dashboard.id,
    );
    const removed = await api(
      'DELETE',
      `/api/v1/deployments/${acme.deployments[0]}/workbooks/${workbook?.workbook_id}`,
      { auth: acme.admin },
    );
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect(await rows('SELECT id FROM dashboard_comments WHERE id = ?', another.id)).toEqual([]);
  });
});
