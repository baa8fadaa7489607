import { beforeAll, describe, expect, it } from 'vitest';
import { API_KEY_PREFIX, shardOfSecret } from '../../src/auth/credentials';
import { sha256Hex } from '../../src/core/crypto';
import { shardOfPublicId } from '../../src/core/shard-marks';
import { shardOfId } from '../../src/core/shards';
import { base64url, fromBase64url } from '../../src/core/text';
import { claimsOf, load, mintOk, publishDashboard, setEmbed } from '../embedding/fixtures';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { dbOf, shardsRead, statementsOf } from '../helpers/shards';

// Four accounts, one per shard (placement fills the least-loaded shard first).
let onShard: SeededAccount[];
let boards: { publicId: string }[];

beforeAll(async () => {
  onShard = [];
  for (let i = 0; i < 4; i++)
    onShard.push(await seedAccount({ allowedEmbedOrigins: [`https://host${i}.example.com`] }));
  boards = [];
  for (const account of onShard) {
    const board = await publishDashboard(account);
    await setEmbed(account, board.publicId, { allowEmbed: true });
    boards.push(board);
  }
});

const account = (shard: number) => onShard[shard] as SeededAccount;
const publicIdOf = (shard: number) => (boards[shard] as { publicId: string }).publicId;

/** The same text with another shard in its mark (the last two of its `bytes` bytes). */
function remarked(text: string, bytes: 16 | 32, shard: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const spare = (1 << (text.length * 6 - bytes * 8)) - 1;
  const last = alphabet.indexOf(text.slice(-1));
  const raw = fromBase64url(text.slice(0, -1) + alphabet[last & ~spare]);
  raw[bytes - 2] = shard >> 8;
  raw[bytes - 1] = shard & 0xff;
  const out = base64url(raw);
  return out.slice(0, -1) + alphabet[alphabet.indexOf(out.slice(-1)) | 1];
}

describe('credentials carry their shard', () => {
  it('every account is on its own shard, and its secrets, sessions and public ids say which', async () => {
    for (let shard = 0; shard < 4; shard++) {
      const a = account(shard);
      expect(shardOfId(a.accountId)).toBe(shard);
      expect(shardOfSecret(a.key.apiKey)).toBe(shard);
      expect(shardOfSecret(a.scopedKey.apiKey)).toBe(shard);
      expect(shardOfSecret(a.admin.bearer)).toBe(shard);
      expect(shardOfSecret(a.member.bearer)).toBe(shard);
      // The secrets keep their published shape: the prefix and 43 base64url characters.
      expect(a.key.apiKey).toMatch(/^eb_ak_[A-Za-z0-9_-]{43}$/);
      expect(a.admin.bearer).toMatch(/^eb_at_[A-Za-z0-9_-]{43}$/);
      expect(publicIdOf(shard)).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(shardOfPublicId(publicIdOf(shard))).toBe(shard);
      const sessionId = await mintOk(a.key, { deploymentId: a.deployments[0], externalId: `v${shard}` });
      // Shard 0's sessions look as they did before sharding: no shard claim.
      expect(claimsOf(sessionId).sh).toBe(shard === 0 ? undefined : shard);
    }
  });
});

describe('a credential of one shard never reads another', () => {
  it("an API key or access token reaches only its own shard, even for another shard's ids", async () => {
    const log = await statementsOf(async () => {
      const other = account(3).deployments[0];
      expectError(await api('GET', `/api/v1/deployments/${other}`, { auth: account(1).admin }), 404);
      expectError(await api('GET', `/api/v1/deployments/${other}/workspace`, { auth: account(1).key }), 404);
      expectError(
        await api('GET', `/api/v1/users/${account(3).adminUserId}`, { auth: account(1).admin }),
        404,
      );
    });
    expect(shardsRead(log)).toEqual([1]);
  });

  it('a secret whose shard mark is changed is looked up on the shard it names, and is unknown there', async () => {
    const prefix = API_KEY_PREFIX.length;
    const key = account(1).key.apiKey;
    const forged = `${API_KEY_PREFIX}${remarked(key.slice(prefix), 32, 3)}`;
    expect(shardOfSecret(forged)).toBe(3);
    const log = await statementsOf(async () => {
      expectError(await api('GET', '/api/v1/deployments', { auth: { apiKey: forged } }), 401, 'UNAUTHORIZED');
    });
    expect(shardsRead(log)).toEqual([3]);
    // A mark naming a shard that does not exist reads as shard 0's.
    const nowhere = `${API_KEY_PREFIX}${remarked(key.slice(prefix), 32, 9)}`;
    const stray = await statementsOf(async () => {
      expectError(
        await api('GET', '/api/v1/deployments', { auth: { apiKey: nowhere } }),
        401,
        'UNAUTHORIZED',
      );
    });
    expect(shardsRead(stray)).toEqual([0]);
  });

  it('a secret made before sharding carries no mark and is shard 0’s', async () => {
    // The shape secrets had: 32 random bytes, their spare bits clear.
    const legacy = `${API_KEY_PREFIX}${base64url(crypto.getRandomValues(new Uint8Array(32)))}`;
    expect(shardOfSecret(legacy)).toBe(0);
    for (const shard of [0, 2]) {
      await dbOf(account(shard).accountId)
        .prepare(
          "INSERT INTO api_keys (account_id, name, key_hash, key_prefix, created_at) VALUES (?, 'old', ?, 'eb_ak_xxxx', 'now')",
        )
        .bind(account(shard).accountId, await sha256Hex(legacy))
        .run();
    }
    const log = await statementsOf(async () => {
      const res = await api('GET', '/api/v1/deployments', { auth: { apiKey: legacy } });
      expect(res.status).toBe(200);
      // Shard 0's account answers: its deployments, not shard 2's.
      expect(res.body.items.map((d: { id: number }) => d.id).sort()).toEqual(
        [...account(0).deployments].sort(),
      );
    });
    expect(shardsRead(log)).toEqual([0]);
  });

  it("a session loads only its own shard's dashboards; a public id of another shard is a 404", async () => {
    const a = account(1);
    const sessionId = await mintOk(a.key, { deploymentId: a.deployments[0], externalId: 'cross' });
    const log = await statementsOf(async () => {
      expect((await load(publicIdOf(1), sessionId)).status).toBe(200);
      expectError(await load(publicIdOf(3), sessionId), 404);
      const page = await api(
        'GET',
        `/embed/dashboard/${publicIdOf(3)}?session=${encodeURIComponent(sessionId)}`,
      );
      expect(page.status).toBe(404);
    });
    expect(shardsRead(log)).toEqual([1]);
    // Shard 0's sessions carry no shard claim: still shard 0's, whatever shard the URL's id names.
    const home = await mintOk(account(0).key, {
      deploymentId: account(0).deployments[0],
      externalId: 'home',
    });
    const fromZero = await statementsOf(async () => {
      expectError(await load(publicIdOf(3), home), 404, 'NOT_FOUND');
      expect((await load(publicIdOf(0), home)).status).toBe(200);
    });
    expect(shardsRead(fromZero)).toEqual([0]);
  });

  it("a viewer page without a session finds its dashboard's shard from the public id alone", async () => {
    const log = await statementsOf(async () => {
      const page = await api('GET', `/embed/dashboard/${publicIdOf(3)}`);
      expect(page.status).toBe(200);
      // The account's framing rule: read on shard 3, where the dashboard lives.
      expect(page.headers.get('content-security-policy')).toContain(
        'frame-ancestors https://host3.example.com',
      );
    });
    expect(shardsRead(log)).toEqual([3]);
    // The same id marked with shard 1: looked for there only, where no dashboard has it, so the
    // page is the bare shell, without shard 3's framing rule.
    const moved = remarked(publicIdOf(3), 16, 1);
    const elsewhere = await statementsOf(async () => {
      const page = await api('GET', `/embed/dashboard/${moved}`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-security-policy')).not.toContain('host3.example.com');
    });
    expect(shardsRead(elsewhere)).toEqual([1]);
  });

  it('an embed token and a Cube API token of one shard read only it', async () => {
    const a = account(2);
    const sessionId = await mintOk(a.key, { deploymentId: a.deployments[0], externalId: 'tokens' });
    const log = await statementsOf(async () => {
      const exchanged = await api('POST', '/api/v1/embed/session/token', { body: { sessionId } });
      expect(exchanged.status).toBe(200);
      const token = exchanged.body.token as string;
      expect(claimsOf(token).sh).toBe(2);
      expect(
        (await api('GET', `/api/v1/embed/dashboard/${publicIdOf(2)}`, { auth: { bearer: token } })).status,
      ).toBe(200);
      expectError(
        await api('GET', `/api/v1/embed/dashboard/${publicIdOf(0)}`, { auth: { bearer: token } }),
        404,
      );
    });
    expect(shardsRead(log)).toEqual([2]);
  });
});
