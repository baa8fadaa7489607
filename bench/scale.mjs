// Scale: generate-session for a new and a returning external user in an account with no other
// external users, and in one with 1,000,000 (100,000 with --quick), bulk-seeded straight into
// the local D1 (INSERT … SELECT over a recursive counter). Goal: p50 at the large
// size within 1.5x of p50 at 0, and rows read per request that do not grow with the account.
//
// The seed writes embed_users rows only. A branch that keeps the external-user count as a
// counter column must bump it here too (see `seedUsers`), or the quota would not see them.

const CHUNK = 250_000;
const KEYS = 20;

async function must(promise, what) {
  const res = await promise;
  if (res.status >= 300) throw new Error(`scale bench, ${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** An account with one deployment, a raised external-user limit and KEYS API keys. */
async function account(ctx, name) {
  const { api, operatorToken } = ctx;
  const created = await must(
    api('POST', '/admin/v1/accounts', {
      auth: { bearer: operatorToken },
      body: { name, plan: 'enterprise' },
    }),
    'account',
  );
  const admin = { bearer: created.accessToken };
  await must(
    api('PATCH', `/admin/v1/accounts/${created.account.id}`, {
      auth: { bearer: operatorToken },
      body: { externalUserLimit: 10_000_000 },
    }),
    'limit',
  );
  const deployment = await must(
    api('POST', '/build/api/v1/deployments', { auth: admin, body: { name } }),
    'deployment',
  );
  // The rate limiter allows 600 mints per 10 s per key: spread the load over keys.
  const keys = [created.apiKey];
  for (let i = 1; i < KEYS; i++) {
    keys.push(
      (await must(api('POST', '/api/v1/api-keys', { auth: admin, body: { name: `scale-${i}` } }), 'key')).key,
    );
  }
  const body = (externalId) => ({
    deploymentId: deployment.id,
    externalId,
    userProfile: { displayName: 'Scale' },
  });
  await must(
    api('POST', '/api/v1/embed/generate-session', { auth: { apiKey: keys[0] }, body: body('returning') }),
    'mint',
  );
  return { accountId: created.account.id, keys, body };
}

/** `count` external users in the account's (only) tenant, in bulk. */
async function seedUsers(d1, accountId, count) {
  const tenant = await d1
    .prepare('SELECT tenant_id FROM embed_users WHERE account_id = ? LIMIT 1')
    .bind(accountId)
    .first();
  for (let start = 0; start < count; start += CHUNK) {
    const end = Math.min(count, start + CHUNK);
    await d1
      .prepare(
        `WITH RECURSIVE c(n) AS (SELECT ?1 UNION ALL SELECT n + 1 FROM c WHERE n < ?2)
         INSERT INTO embed_users (account_id, tenant_id, external_id, display_name, created_at, updated_at)
         SELECT ?3, ?4, 'bulk-' || n, 'Bulk ' || n, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM c`,
      )
      .bind(start + 1, end, accountId, tenant.tenant_id)
      .run();
  }
}

export default async function scale(ctx) {
  const size = ctx.quick ? 100_000 : 1_000_000;
  const label = size.toLocaleString('en');
  const empty = await account(ctx, 'Scale empty');
  const large = await account(ctx, 'Scale large');
  const started = Date.now();
  // Straight into the account's shard (it is not the first account, so not on DB).
  await seedUsers(await ctx.shardD1(large.accountId), large.accountId, size);
  console.log(`scale bench: seeded ${label} external users in ${Date.now() - started} ms`);

  const run = `${process.pid}-${Date.now()}`;
  let n = 0;
  const mint = (acct, externalId) => ({
    method: 'POST',
    path: '/api/v1/embed/generate-session',
    headers: { 'content-type': 'application/json' },
    floor: 'd1',
    // A mint that counts a million rows takes seconds: few connections and long rounds, the
    // same for both sizes so their p50 compare.
    connections: 4,
    duration: ctx.quick ? 3 : 6,
    setupRequest(req) {
      n += 1;
      return {
        ...req,
        headers: { ...req.headers, authorization: `Api-Key ${acct.keys[n % KEYS]}` },
        body: JSON.stringify(acct.body(externalId(n))),
      };
    },
  });
  const NEW_0 = 'scale: generate-session new user, 0 other external users (4 conn.)';
  const RET_0 = 'scale: generate-session returning user, 0 other external users (4 conn.)';
  return [
    { name: NEW_0, ...mint(empty, (i) => `new-${run}-${i}`) },
    {
      name: `scale: generate-session new user, ${label} external users (4 conn.)`,
      ...mint(large, (i) => `new-${run}-${i}`),
      compare: { with: NEW_0, metric: 'p50', goal: 1.5 },
    },
    { name: RET_0, ...mint(empty, () => 'returning') },
    {
      name: `scale: generate-session returning user, ${label} external users (4 conn.)`,
      ...mint(large, () => 'returning'),
      compare: { with: RET_0, metric: 'p50', goal: 1.5 },
    },
  ];
}
