#!/usr/bin/env node
// `npm run seed [-- --url http://localhost:8787 --token <ADMIN_TOKEN>]` against a running
// `npm start`: provisions a demo account (admin user, access token, API key) and a deployment,
// then prints them with curl commands to paste.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
const arg = (flag) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
};

const base = (arg('--url') ?? process.env.EDGEBOARD_URL ?? 'http://localhost:8787').replace(/\/$/, '');
const devVars = path.join(root, '.dev.vars');
const operatorToken =
  arg('--token') ??
  process.env.ADMIN_TOKEN ??
  (existsSync(devVars) ? /^ADMIN_TOKEN=(.*)$/m.exec(readFileSync(devVars, 'utf8'))?.[1] : undefined);
if (!operatorToken) {
  console.error('No operator token: run `npm start` once (it writes .dev.vars) or pass --token.');
  process.exit(1);
}

async function call(method, route, token, body) {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

try {
  const stamp = new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '');
  const provisioned = await call('POST', '/admin/v1/accounts', operatorToken, {
    name: `Demo ${stamp}`,
    plan: 'enterprise',
    useCreatorMode: true,
    adminEmail: `admin+${stamp}@demo.example.com`,
  });
  const { accessToken, apiKey, account, user } = provisioned;
  const deployment = await call('POST', '/build/api/v1/deployments', accessToken, { name: 'Demo analytics' });

  console.log(`Demo account ${account.id} (${account.plan}), admin user ${user.username} (id ${user.id})

  ACCESS_TOKEN=${accessToken}
  API_KEY=${apiKey}
  DEPLOYMENT_ID=${deployment.id}   # ${deployment.deploymentUrl}

These secrets are shown once. Try:

  curl -s ${base}/api/v1/deployments/${deployment.id} -H "Authorization: Bearer ${accessToken}"
  curl -s ${base}/api/v1/deployments/${deployment.id}/build-status -H "Authorization: Bearer ${accessToken}"
  curl -s -X POST ${base}/api/v1/users -H "Authorization: Bearer ${accessToken}" \\
    -H 'content-type: application/json' -d '{"email":"ana@example.com","username":"ana"}'
  curl -s ${base}/api/v1/api-keys -H "Authorization: Bearer ${accessToken}"
  open ${base}/docs   # the interactive API reference
`);
} catch (err) {
  console.error(`Seeding failed: ${err.message}\nIs the API running (npm start) at ${base}?`);
  process.exit(1);
}
