// Foundation scenarios: an authenticated read and an admin write.
export default async function foundation(ctx) {
  const { world } = ctx;
  let n = 0;
  return [
    {
      name: 'GET /api/v1/deployments/{id} (Bearer)',
      method: 'GET',
      path: `/api/v1/deployments/${world.deployments[0]}`,
      headers: { authorization: `Bearer ${world.member.bearer}` },
    },
    {
      name: 'POST /api/v1/users (admin Bearer, new user each request)',
      method: 'POST',
      path: '/api/v1/users',
      headers: { authorization: `Bearer ${world.admin.bearer}`, 'content-type': 'application/json' },
      setupRequest(req) {
        n += 1;
        const id = `${process.pid}-${Date.now()}-${n}`;
        return { ...req, body: JSON.stringify({ email: `u${id}@bench.example.com`, username: `u${id}` }) };
      },
    },
  ];
}
