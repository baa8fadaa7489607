// The platform floor of generate-session, for scripts/mint-bench.mjs (never deployed): a Worker
// that makes only the platform calls a mint cannot do without, with the bindings edgeboard's
// mint has (the same rate limiter settings, a D1 database, a KV namespace), so the mint's ratio
// to /healthz can be read against what any Worker reaches on this emulator.
//
// - `/`: answers at once (its /healthz).
// - `POST /returning`: the body parsed; the API key hashed (SHA-256); the rate limiter's call on
//   one of the key's sub-keys; ONE D1 batch of 4 reads by index (the key, the user's state, the
//   3 groups, the 3 attributes: what a returning user's mint checks); the session signed (HMAC)
//   and put in KV with a TTL; a JSON answer.
// - `POST /new`: the same, then ONE D1 batch that writes the user: a quota counter guarded by a
//   CHECK, the user, 3 memberships and 3 attribute values, and the ids read back (5 statements,
//   the fewest a new user's atomic write takes; edgeboard's has 13, with its other guards).
// - `POST /setup`: creates the tables and the catalogue (once, before the rounds).
const encoder = new TextEncoder();
let signingKey;

const SCHEMA = [
  'CREATE TABLE IF NOT EXISTS keys (hash TEXT PRIMARY KEY, account INTEGER NOT NULL)',
  'CREATE TABLE IF NOT EXISTS accounts (id INTEGER PRIMARY KEY, users INTEGER NOT NULL CHECK (users <= 10000000))',
  'CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, account INTEGER NOT NULL, external TEXT NOT NULL, state TEXT, UNIQUE (account, external))',
  'CREATE TABLE IF NOT EXISTS groups (id INTEGER PRIMARY KEY, account INTEGER NOT NULL, name TEXT NOT NULL, UNIQUE (account, name))',
  'CREATE TABLE IF NOT EXISTS attributes (id INTEGER PRIMARY KEY, account INTEGER NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, UNIQUE (account, name))',
  'CREATE TABLE IF NOT EXISTS memberships (user_id INTEGER NOT NULL, group_id INTEGER NOT NULL, PRIMARY KEY (user_id, group_id))',
  'CREATE TABLE IF NOT EXISTS attribute_values (user_id INTEGER NOT NULL, attribute_id INTEGER NOT NULL, value TEXT, PRIMARY KEY (user_id, attribute_id))',
];

async function sha256Hex(text) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function sign(payload) {
  signingKey ??= await crypto.subtle.importKey(
    'raw',
    encoder.encode('mint-floor-signing-secret-0123456789'),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  );
  const body = btoa(JSON.stringify(payload));
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', signingKey, encoder.encode(body)));
  return `${body}.${btoa(String.fromCharCode(...mac))}`;
}

async function setup(env, { keys, groups, attributes }) {
  await env.DB.batch([
    ...SCHEMA.map((s) => env.DB.prepare(s)),
    env.DB.prepare('INSERT OR IGNORE INTO accounts (id, users) VALUES (1, 0)'),
    ...(await Promise.all(keys.map(sha256Hex))).map((hash) =>
      env.DB.prepare('INSERT OR IGNORE INTO keys (hash, account) VALUES (?, 1)').bind(hash),
    ),
    ...groups.map((name) =>
      env.DB.prepare('INSERT OR IGNORE INTO groups (account, name) VALUES (1, ?)').bind(name),
    ),
    ...attributes.map(([name, type]) =>
      env.DB.prepare('INSERT OR IGNORE INTO attributes (account, name, type) VALUES (1, ?, ?)').bind(
        name,
        type,
      ),
    ),
  ]);
}

async function mint(request, env, isNew) {
  const body = await request.json();
  const apiKey = (request.headers.get('authorization') ?? '').replace(/^Api-Key /, '');
  const hash = await sha256Hex(apiKey);
  // As edgeboard spreads a key over sub-keys of the same binding (10 per 10 s each).
  const { success } = await env.LIMITER.limit({ key: `${hash}:${Math.floor(Math.random() * 1667)}` });
  if (!success) return new Response('{"error":"rate limited"}', { status: 429 });
  const groups = JSON.stringify(body.groups ?? []);
  const attributes = JSON.stringify((body.userAttributes ?? []).map((a) => a.name));
  const [key, user, groupRows, attributeRows] = await env.DB.batch([
    env.DB.prepare('SELECT account FROM keys WHERE hash = ?').bind(hash),
    env.DB.prepare('SELECT id, state FROM users WHERE account = 1 AND external = ?').bind(body.externalId),
    env.DB.prepare(
      'SELECT id, name FROM groups WHERE account = 1 AND name IN (SELECT value FROM json_each(?))',
    ).bind(groups),
    env.DB.prepare(
      'SELECT id, name, type FROM attributes WHERE account = 1 AND name IN (SELECT value FROM json_each(?))',
    ).bind(attributes),
  ]);
  if (key.results.length === 0) return new Response('{"error":"unauthorized"}', { status: 401 });
  let userId = user.results[0]?.id ?? null;
  if (isNew) {
    const state = JSON.stringify({ profile: body.userProfile, securityContext: body.securityContext });
    const values = JSON.stringify(body.userAttributes ?? []);
    const written = await env.DB.batch([
      env.DB.prepare('UPDATE accounts SET users = users + 1 WHERE id = 1'),
      env.DB.prepare('INSERT INTO users (account, external, state) VALUES (1, ?, ?)').bind(
        body.externalId,
        state,
      ),
      env.DB.prepare(
        `INSERT INTO memberships (user_id, group_id) SELECT u.id, g.id FROM users u, groups g
         WHERE u.account = 1 AND u.external = ? AND g.account = 1 AND g.name IN (SELECT value FROM json_each(?))`,
      ).bind(body.externalId, groups),
      env.DB.prepare(
        `INSERT INTO attribute_values (user_id, attribute_id, value) SELECT u.id, a.id, d.value ->> 'value'
         FROM users u, json_each(?) d JOIN attributes a ON a.account = 1 AND a.name = d.value ->> 'name'
         WHERE u.account = 1 AND u.external = ?`,
      ).bind(values, body.externalId),
      env.DB.prepare('SELECT id FROM users WHERE account = 1 AND external = ?').bind(body.externalId),
    ]);
    userId = written.at(-1).results[0].id;
  }
  const sessionId = crypto.randomUUID();
  const payload = {
    sessionId,
    userId,
    groups: groupRows.results,
    attributes: attributeRows.results,
    expiresAt: Date.now() + 3_600_000,
  };
  const [token] = await Promise.all([
    sign(payload),
    env.SESSIONS.put(`session:${sessionId}`, JSON.stringify(payload), { expirationTtl: 3600 }),
  ]);
  return new Response(JSON.stringify({ sessionId, token, expiresAt: payload.expiresAt }), {
    headers: { 'content-type': 'application/json' },
  });
}

export default {
  async fetch(request, env) {
    const path = new URL(request.url).pathname;
    if (request.method === 'POST' && path === '/setup') {
      await setup(env, await request.json());
      return new Response('{"ok":true}');
    }
    if (request.method === 'POST' && (path === '/returning' || path === '/new')) {
      return mint(request, env, path === '/new');
    }
    return new Response('{"ok":true}', { headers: { 'content-type': 'application/json' } });
  },
};
