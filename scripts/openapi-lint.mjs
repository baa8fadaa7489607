#!/usr/bin/env node
// `npm run lint:openapi` (part of `npm run lint`, so CI runs it): serves the Worker locally (wrangler's
// own bundling, in workerd), fetches the OpenAPI document it serves (`GET /api/v1/openapi.json`)
// and lints it with Redocly's CLI against redocly.yaml (its recommended rules). Any error fails
// the run: the document generated clients and /docs read must be valid OpenAPI, which the tests'
// own checks of the document cannot prove on their own. Runs offline: Redocly's telemetry and
// update check are off, and the document is a local file.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unstable_startWorker } from 'wrangler';

// Offline: no `Request.cf` fetched from Cloudflare, no usage metrics sent.
process.env.CLOUDFLARE_CF_FETCH_ENABLED = 'false';
process.env.WRANGLER_SEND_METRICS = 'false';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const outDir = path.join(root, '.wrangler', 'openapi-lint');
const documentFile = path.join(outDir, 'openapi.json');

/** The document as the Worker serves it. */
async function servedDocument() {
  const worker = await unstable_startWorker({
    config: path.join(root, 'wrangler.toml'),
    dev: { server: { hostname: '127.0.0.1', port: 0 }, inspector: false, watch: false, logLevel: 'warn' },
  });
  try {
    const res = await worker.fetch('http://localhost/api/v1/openapi.json');
    if (res.status !== 200) throw new Error(`GET /api/v1/openapi.json answered ${res.status}`);
    return await res.text();
  } finally {
    await worker.dispose();
  }
}

mkdirSync(outDir, { recursive: true });
writeFileSync(documentFile, await servedDocument());
const lint = spawnSync(
  process.execPath,
  [
    path.join(root, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js'),
    'lint',
    documentFile,
    '--config',
    path.join(root, 'redocly.yaml'),
    '--format',
    'stylish',
  ],
  {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  },
);
process.exit(lint.status ?? 1);
