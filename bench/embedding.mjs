// Signed-embedding scenarios: minting for new and returning external users, and the browser's
// dashboard load. Goals: a new user <= 2 D1 round trips, a returning unchanged user
// 1 round trip and no write, both >= 25% of /healthz; a load with the session in KV 1 KV read and
// at most 1 D1 query, >= 50% of /healthz.

export const GROUPS = ['bench-sales', 'bench-support', 'bench-finance'];
export const ATTRIBUTES = [
  ['bench_region', 'string', 'eu'],
  ['bench_level', 'number', 3],
  ['bench_teams', 'string_array', ['a', 'b']],
];
// SESSION_RATE_LIMITER allows 600 mints per 10 s per key: spread the load over many keys, as a
// customer's fleet of backends would, so the figures measure minting and not the limiter.
export const KEYS = 100;

/** What a backend sends for each user it mints a session for: the same every time (unchanged). */
export const SESSION_STATE = {
  groups: GROUPS,
  userAttributes: ATTRIBUTES.map(([name, , value]) => ({ name, value })),
  userProfile: { displayName: 'Bench User', picture: 'https://cdn.example.com/avatar.png' },
  securityContext: { orgId: 42 },
};

async function must(promise, what) {
  const res = await promise;
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export default async function embedding(ctx) {
  const { api, world, operatorToken } = ctx;
  const admin = world.admin;
  const deploymentId = world.deployments[0];
  await must(
    api('PATCH', `/admin/v1/accounts/${world.accountId}`, {
      auth: { bearer: operatorToken },
      body: { externalUserLimit: 10_000_000 },
    }),
    'raise the external user limit',
  );
  for (const name of GROUPS)
    await must(api('POST', '/api/v1/groups', { auth: admin, body: { name } }), 'group');
  for (const [name, type] of ATTRIBUTES) {
    await must(api('POST', '/api/v1/user-attributes', { auth: admin, body: { name, type } }), 'attribute');
  }
  const keys = [];
  for (let i = 0; i < KEYS; i++) {
    keys.push(
      (await must(api('POST', '/api/v1/api-keys', { auth: admin, body: { name: `bench-${i}` } }), 'key')).key,
    );
  }

  const body = (externalId) => JSON.stringify({ deploymentId, externalId, ...SESSION_STATE });

  // Returning users: minted once here with the very state the scenario sends again; the
  // "changed" users (c-*) are others, so changing them leaves the unchanged ones unchanged for
  // every later run (the geography model runs the scenarios again).
  const RETURNING = 200;
  for (const prefix of ['r', 'c']) {
    for (let i = 0; i < RETURNING; i++) {
      await must(
        api('POST', '/api/v1/embed/generate-session', {
          auth: { apiKey: keys[i % KEYS] },
          body: JSON.parse(body(`${prefix}-${i}`)),
        }),
        'returning user',
      );
    }
  }

  // The dashboard a browser loads, embedding allowed, and a session for it.
  const workbook = await must(
    api('POST', `/api/v1/deployments/${deploymentId}/workbooks`, {
      auth: admin,
      body: { name: 'Bench board' },
    }),
    'workbook',
  );
  await must(
    api('PUT', `/api/v1/deployments/${deploymentId}/workbooks/${workbook.id}/dashboard`, {
      auth: admin,
      body: {
        dashboardDraft: {
          kind: 'CLASSIC',
          title: 'Bench board',
          widgets: [
            { id: 'w1', type: 'TEXT', position: { x: 0, y: 0, w: 6, h: 2 }, config: { text: 'Hello' } },
          ],
        },
      },
    }),
    'draft',
  );
  const published = await must(
    api('POST', `/api/v1/deployments/${deploymentId}/workbooks/${workbook.id}/publish`, {
      auth: admin,
      body: {},
    }),
    'publish',
  );
  await must(
    api('PATCH', `/api/v1/embed/dashboard/${published.publicId}`, {
      auth: admin,
      body: { allowEmbed: true },
    }),
    'allowEmbed',
  );
  const session = await must(
    api('POST', '/api/v1/embed/generate-session', {
      auth: { apiKey: keys[0] },
      body: JSON.parse(body('r-0')),
    }),
    'session',
  );

  let n = 0;
  const run = `${process.pid}-${Date.now()}`;
  const mintRequest = (externalId) => (req) => {
    n += 1;
    return {
      ...req,
      headers: { ...req.headers, authorization: `Api-Key ${keys[n % KEYS]}` },
      body: body(externalId(n)),
    };
  };
  const mint = {
    method: 'POST',
    path: '/api/v1/embed/generate-session',
    headers: { 'content-type': 'application/json' },
  };
  // A returning user whose profile changed since the last mint: one write per request.
  const changedRequest = (req) => {
    n += 1;
    const payload = JSON.parse(body(`c-${n % RETURNING}`));
    payload.userProfile = { ...payload.userProfile, displayName: `Bench User ${run}-${n}` };
    return {
      ...req,
      headers: { ...req.headers, authorization: `Api-Key ${keys[n % KEYS]}` },
      body: JSON.stringify(payload),
    };
  };
  // Goals under the geography model (see scripts/bench.mjs): p50 in ms, or
  // 'primary' for one primary delay + 40 ms.
  return [
    {
      name: 'generate-session, new external user (3 groups, 3 attributes)',
      ...mint,
      setupRequest: mintRequest((i) => `new-${run}-${i}`),
      floor: 'd1',
      geo: { p50: 'primary' },
    },
    {
      name: 'generate-session, returning user, state unchanged',
      ...mint,
      setupRequest: mintRequest((i) => `r-${i % RETURNING}`),
      floor: 'd1',
      geo: { p50: 40 },
    },
    {
      name: 'generate-session, returning user, profile changed',
      ...mint,
      setupRequest: changedRequest,
      floor: 'd1',
      geo: {},
    },
    {
      name: 'GET /api/v1/embed/dashboard/{publicId} (Session, KV hit)',
      method: 'GET',
      path: `/api/v1/embed/dashboard/${published.publicId}`,
      headers: { authorization: `Session ${session.sessionId}` },
      floor: 'kv+d1',
      geo: { p50: 40 },
    },
    {
      name: 'GET /embed/dashboard/{publicId} (viewer page, 1 widget, KV hit)',
      method: 'GET',
      path: `/embed/dashboard/${published.publicId}?session=${encodeURIComponent(session.sessionId)}`,
      floor: 'kv+d1',
      geo: {},
    },
  ];
}
