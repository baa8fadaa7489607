import { env } from 'cloudflare:test';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shardOfId } from '../../src/core/shards';
import { BOOKMARK_WINDOW_SECONDS } from '../../src/embedding/embed-sessions.service';
import type { SessionPayload } from '../../src/embedding/session-store';
import {
  claimsOf,
  kvPayload,
  load,
  mintOk,
  publishDashboard,
  roundTrips,
  setEmbed,
} from '../embedding/fixtures';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { clockAt, platform } from '../helpers/platform';
import { type OpenedSession, recordSessions, shardsRead, statementsOf } from '../helpers/shards';

// One account per shard, each with an embeddable dashboard.
let onShard: { account: SeededAccount; publicId: string }[];

beforeAll(async () => {
  onShard = [];
  for (let shard = 0; shard < 4; shard++) {
    const account = await seedAccount();
    expect(shardOfId(account.accountId)).toBe(shard);
    const { publicId } = await publishDashboard(account);
    await setEmbed(account, publicId, { allowEmbed: true });
    onShard.push({ account, publicId });
  }
});

let recording: ReturnType<typeof recordSessions> | null = null;
afterEach(() => {
  recording?.stop();
  recording = null;
});

/** The D1 sessions `run` opens (the Worker's included). */
async function sessionsOf(run: () => Promise<unknown>): Promise<OpenedSession[]> {
  recording = recordSessions();
  try {
    await run();
    return recording.opened;
  } finally {
    recording.stop();
    recording = null;
  }
}

const mintOn = (shard: number, externalId: string, extra: Record<string, unknown> = {}) => {
  const { account } = onShard[shard] as { account: SeededAccount };
  return mintOk(account.key, { deploymentId: account.deployments[0], externalId, ...extra });
};

/** A load on `shard`'s dashboard: its answer, the sessions it opened and the shards it read. */
async function loadOn(shard: number, sid: string) {
  let res: Awaited<ReturnType<typeof load>> | undefined;
  let shards: number[] = [];
  const sessions = await sessionsOf(async () => {
    shards = shardsRead(
      await statementsOf(async () => {
        res = await load((onShard[shard] as { publicId: string }).publicId, sid);
      }),
    );
  });
  const loaded = res as Awaited<ReturnType<typeof load>>;
  expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
  // The hot path's cost is unchanged: one D1 statement, on the session's shard.
  expect(roundTrips(loaded)).toBe(1);
  expect(shards).toEqual([shard]);
  return sessions.map((s) => ({ shard: s.shard, with: s.with }));
}

describe('a mint that writes D1', () => {
  it('stores the bookmark after its writes with its shard; the first load resumes its replica session there', async () => {
    for (let shard = 0; shard < 4; shard++) {
      let sid = '';
      // A new user in a new tenant: the mint writes one batch on its shard.
      const opened = await sessionsOf(async () => {
        sid = await mintOn(shard, `new-${shard}`, { embedTenantName: `tenant-${shard}` });
      });
      const writer = opened.filter((s) => s.with === 'first-primary').at(-1);
      expect(writer?.shard).toBe(shard);
      const payload = (await kvPayload(sid)) as SessionPayload;
      // As the write session produced it (workerd answers one; a runtime answering null is stored as null).
      expect(payload.written).toEqual({ shard, bookmark: writer?.session.getBookmark() ?? null });
      const bookmark = payload.written?.bookmark;
      expect(await loadOn(shard, sid)).toEqual([{ shard, with: bookmark ?? 'first-unconstrained' }]);
    }
  });
});

describe('a load', () => {
  it('reads unconstrained after a mint that wrote nothing (no bookmark stored)', async () => {
    const sid = await mintOn(1, 'returning');
    const again = await mintOn(1, 'returning');
    expect((await kvPayload(sid)).written).toMatchObject({ shard: 1 });
    expect((await kvPayload(again)).written).toBeUndefined();
    expect(await loadOn(1, again)).toEqual([{ shard: 1, with: 'first-unconstrained' }]);
  });

  it('ignores a stored bookmark of another shard, or a null one', async () => {
    const sid = await mintOn(2, 'elsewhere');
    const key = `session:${claimsOf(sid).jti}`;
    const payload = (await kvPayload(sid)) as SessionPayload;
    expect(payload.written?.shard).toBe(2);
    for (const written of [
      { shard: 3, bookmark: 'a-bookmark-of-shard-3' },
      { shard: 0, bookmark: payload.written?.bookmark ?? 'a-bookmark-of-shard-0' },
      { shard: 2, bookmark: null },
    ]) {
      await env.SESSIONS.put(key, JSON.stringify({ ...payload, written }));
      expect(await loadOn(2, sid)).toEqual([{ shard: 2, with: 'first-unconstrained' }]);
    }
  });

  it('past the bookmark window reads KV and D1 side by side, unconstrained', async () => {
    const sid = await mintOn(3, 'later');
    const payload = (await kvPayload(sid)) as SessionPayload;
    expect(payload.written?.shard).toBe(3);
    platform.clock = clockAt((claimsOf(sid).iat + BOOKMARK_WINDOW_SECONDS) * 1000);
    expect(await loadOn(3, sid)).toEqual([{ shard: 3, with: 'first-unconstrained' }]);
    platform.clock = clockAt((claimsOf(sid).iat + BOOKMARK_WINDOW_SECONDS - 1) * 1000);
    expect(await loadOn(3, sid)).toEqual([
      { shard: 3, with: payload.written?.bookmark ?? 'first-unconstrained' },
    ]);
  });
});
