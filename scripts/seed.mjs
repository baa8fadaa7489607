#!/usr/bin/env node
// `npm run seed` against a running `npm start`: provisions a demo account and prints its
// credentials as `export` lines, the variables every example of README.md and docs/ uses.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { csvChunks, demoDashboard, demoModel, demoReports, demoTables } from './demo-data.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));

const HELP = `Usage: npm run -s seed [-- --url <base URL>] [-- --token <ADMIN_TOKEN>]

Provisions a demo account on a running edgeboard (npm start): an enterprise account with its
admin user, an access token and an API key, a deployment whose embedded store holds the demo
shop (customers, products, 40,000 orders and their items) with its data model built, a Cube API
token for it, and a published dashboard over the demo shop (KPIs, revenue over time, orders by
status, revenue by category, orders by country, top products, with a country filter and a time
grain control), embedding allowed. Prints shell export lines, so that

  eval "$(npm run -s seed)"

sets the variables the README and docs/ use: BASE_URL, ADMIN_TOKEN, ACCOUNT_ID, USER_ID,
ACCESS_TOKEN, API_KEY, DEPLOYMENT_ID, CUBE_API_TOKEN, WORKBOOK_ID, PUBLIC_ID. Each run creates a
new account.

Options:
  --url <url>      the API's base URL (default: $BASE_URL, else http://localhost:8787)
  --token <token>  the operator token (default: $ADMIN_TOKEN, else ADMIN_TOKEN in .dev.vars,
                   which npm start writes)
  -h, --help       this help
`;

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
    allowPositionals: false,
  }));
} catch (err) {
  console.error(`${err.message}\n\n${HELP}`);
  process.exit(2);
}
if (options.help) {
  console.log(HELP);
  process.exit(0);
}

const base = (options.url ?? process.env.BASE_URL ?? 'http://localhost:8787').replace(/\/+$/, '');
const devVars = path.join(root, '.dev.vars');
const operatorToken =
  options.token ??
  process.env.ADMIN_TOKEN ??
  (existsSync(devVars) ? /^ADMIN_TOKEN=(.*)$/m.exec(readFileSync(devVars, 'utf8'))?.[1] : undefined);
if (!operatorToken) {
  console.error('No operator token: run `npm start` once (it writes .dev.vars) or pass --token.');
  process.exit(1);
}

async function call(method, route, auth, body, contentType = 'application/json') {
  const json = contentType === 'application/json';
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: auth, ...(body !== undefined ? { 'content-type': contentType } : {}) },
    body: body === undefined ? undefined : json ? JSON.stringify(body) : body,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

/** Loads the demo shop into the deployment's embedded store and builds its model. */
async function loadDemoShop(bearer, deploymentId) {
  const d = `/api/v1/deployments/${deploymentId}`;
  for (const table of demoTables()) {
    let mode = 'replace';
    for (const chunk of csvChunks(table)) {
      await call('POST', `${d}/data/tables/${table.name}/import?mode=${mode}`, bearer, chunk, 'text/csv');
      mode = 'append';
    }
  }
  const files = `/build/api/v1/deployments/${deploymentId}/data-model/files`;
  await call('PUT', files, bearer, { files: [{ path: 'model/cubes/shop.yml', content: demoModel() }] });
  // A new deployment starts with an example cube (model/cubes/example.yml) so its first build has
  // a model; the demo deployment serves the shop's model alone, so /meta lists only its cubes.
  await call('DELETE', files, bearer, { files: [{ path: 'model/cubes/example.yml' }] });
  // The builds queue runs the build within a few seconds under npm start.
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await call('GET', `${d}/build-status`, bearer);
    if (status.status === 'built') return;
    if (status.status === 'failed') throw new Error(`the demo model failed to build: ${status.errorText}`);
    if (Date.now() > deadline) throw new Error(`the demo model is still ${status.status} after 60 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Single-quoted for a POSIX shell. */
const quote = (value) => `'${String(value).replaceAll("'", `'\\''`)}'`;

try {
  const stamp = new Date().toISOString().slice(0, 19).replace(/[-:T]/g, '');
  const provisioned = await call('POST', '/admin/v1/accounts', `Bearer ${operatorToken}`, {
    name: `Demo ${stamp}`,
    plan: 'enterprise',
    useCreatorMode: true,
    adminEmail: `admin+${stamp}@demo.example.com`,
  });
  const { accessToken, apiKey, account, user } = provisioned;
  const bearer = `Bearer ${accessToken}`;
  const deployment = await call('POST', '/build/api/v1/deployments', bearer, { name: 'Demo analytics' });
  const d = `/api/v1/deployments/${deployment.id}`;
  await loadDemoShop(bearer, deployment.id);
  const { cubeApiToken } = await call('POST', `${d}/token`, bearer, {});
  const workbook = await call('POST', `${d}/workbooks`, bearer, { name: 'Sales overview' });
  // Each chart is a Cube query over the demo model: every load runs it, with the dashboard's
  // country filter and time grain applied.
  const reportIds = {};
  for (const report of demoReports()) {
    const created = await call('POST', `${d}/reports`, bearer, {
      name: report.name,
      title: report.name,
      workbookId: workbook.id,
      jsonQuery: JSON.stringify(report.query),
      spec: JSON.stringify(report.spec),
    });
    reportIds[report.key] = created.id;
  }
  await call('PUT', `${d}/workbooks/${workbook.id}/dashboard`, bearer, {
    dashboardDraft: demoDashboard(reportIds),
  });
  const published = await call('POST', `${d}/workbooks/${workbook.id}/publish`, bearer, {
    title: 'Sales overview',
    allowEmbed: true,
  });

  const vars = {
    BASE_URL: base,
    ADMIN_TOKEN: operatorToken,
    ACCOUNT_ID: account.id,
    USER_ID: user.id,
    ACCESS_TOKEN: accessToken,
    API_KEY: apiKey,
    DEPLOYMENT_ID: deployment.id,
    CUBE_API_TOKEN: cubeApiToken,
    WORKBOOK_ID: workbook.id,
    PUBLIC_ID: published.publicId,
  };
  console.log(`# edgeboard demo account ${account.id} (${account.plan}), admin user ${user.username}.
# Secrets are shown once (only their SHA-256 is stored). Load them into your shell with
#   eval "$(npm run -s seed)"    or paste the export lines below.`);
  for (const [name, value] of Object.entries(vars)) console.log(`export ${name}=${quote(value)}`);
  console.log(`# Try: curl -s "$BASE_URL/api/v1/deployments/$DEPLOYMENT_ID" -H "Authorization: Bearer $ACCESS_TOKEN"
# Query the demo shop: curl -s "$BASE_URL/cubejs-api/v1/load" -H "Authorization: $CUBE_API_TOKEN" \\
#   -H 'content-type: application/json' -d '{"query":{"measures":["orders.count"],"dimensions":["orders.status"]}}'
# The embed load (live data): SESSION_ID from POST /api/v1/embed/generate-session, see docs/embedding.md
# The host-page example: npm run example (reads BASE_URL, API_KEY, DEPLOYMENT_ID and PUBLIC_ID)
# The interactive API reference: ${base}/docs`);
} catch (err) {
  console.error(`Seeding failed: ${err.message}\nIs the API running (npm start) at ${base}?`);
  process.exit(1);
}
