// The account's app config switch `embedding.enableDashboardComments`: false turns the comments
// API off for every session of the account (as it removes the viewer's panel); never set, null
// and true keep it on. Another account's switch changes nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import {
  editComment,
  listThreads,
  mentionable,
  postComment,
  postOk,
  publishDashboard,
  removeComment,
  resolveThread,
  sessionOf,
  setEmbed,
  storedComments,
} from './fixtures';

let acme: SeededAccount;
let other: SeededAccount;
let board: { id: number; publicId: string };
let otherBoard: { id: number; publicId: string };
let alice: string;
let otherAlice: string;

async function setComments(account: SeededAccount, enableDashboardComments: boolean | null) {
  const res = await api('PATCH', '/api/v1/app-config', {
    auth: account.admin,
    body: { embedding: { enableDashboardComments } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

beforeAll(async () => {
  acme = await seedAccount();
  other = await seedAccount();
  board = await publishDashboard(acme);
  otherBoard = await publishDashboard(other);
  await setEmbed(acme, board.publicId, { allowEmbed: true });
  await setEmbed(other, otherBoard.publicId, { allowEmbed: true });
  alice = await sessionOf(acme, 'alice');
  otherAlice = await sessionOf(other, 'alice');
});

describe('embedding.enableDashboardComments', () => {
  it('false refuses every comment operation with 403 and writes nothing; true and null serve again', async () => {
    const root = await postOk(alice, board.publicId, { body: 'Before the switch' });
    await setComments(acme, false);

    const list = await listThreads(alice, board.publicId);
    expectError(list, 403, 'FORBIDDEN');
    expect(list.body.error).toContain('embedding.enableDashboardComments');
    expectError(await postComment(alice, board.publicId, { body: 'During' }), 403, 'FORBIDDEN');
    expectError(await editComment(alice, board.publicId, root.id, { body: 'Edited' }), 403, 'FORBIDDEN');
    expectError(await resolveThread(alice, board.publicId, root.id, { resolved: true }), 403, 'FORBIDDEN');
    expectError(await removeComment(alice, board.publicId, root.id), 403, 'FORBIDDEN');
    expectError(await mentionable(alice, board.publicId), 403, 'FORBIDDEN');

    const stored = await storedComments(board.id);
    expect(stored.map((c) => c.body)).toEqual(['Before the switch']);
    expect(stored[0]).toMatchObject({ removed_at: null, resolved_at: null });

    // The other account, switch untouched, is served throughout.
    await postOk(otherAlice, otherBoard.publicId, { body: 'Elsewhere' });

    await setComments(acme, null);
    const listed = await listThreads(alice, board.publicId);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((t: any) => t.root.body)).toEqual(['Before the switch']);

    await setComments(acme, true);
    await postOk(alice, board.publicId, { body: 'After the switch' });
    expect((await storedComments(board.id)).map((c) => c.body)).toEqual([
      'Before the switch',
      'After the switch',
    ]);
  });
});
