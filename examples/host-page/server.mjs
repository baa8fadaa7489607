#!/usr/bin/env node
// `npm run example`: a customer's site in one file, with no dependency. It serves a page that
// embeds an edgeboard dashboard with the embed SDK (sdk/), and the backend route the SDK asks
// for sessions: `POST /session` mints one with the account's API key, which never reaches the
// browser. Point it at a running edgeboard with the seed's variables:
//
//   eval "$(npm run -s seed)" && npm run example
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const sdkSource = path.join(root, 'sdk', 'src', 'index.ts');
const sdkDist = path.join(root, 'sdk', 'dist');
const sdkBundle = path.join(sdkDist, 'index.js');

const required = ['BASE_URL', 'API_KEY', 'DEPLOYMENT_ID', 'PUBLIC_ID'];
const missing = required.filter((name) => !process.env[name]);
if (missing.length > 0) {
  console.error(`Missing ${missing.join(', ')}. Start edgeboard (npm start), then seed it and load its
variables into this shell before running the example:

  eval "$(npm run -s seed)"
  npm run example
`);
  process.exit(1);
}
const baseUrl = process.env.BASE_URL.replace(/\/+$/, '');
const apiKey = process.env.API_KEY;
const deploymentId = Number(process.env.DEPLOYMENT_ID);
const publicId = process.env.PUBLIC_ID;
const port = Number(process.env.EXAMPLE_PORT ?? 8080);

// The page imports the SDK's build; build it when it is missing or older than its source.
if (!existsSync(sdkBundle) || statSync(sdkBundle).mtimeMs < statSync(sdkSource).mtimeMs) {
  console.log('[example] building the embed SDK (npm run build:sdk)');
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const build = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'sdk', 'tsconfig.json')], {
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

/**
 * The backend route the SDK's `fetchSession` calls. A real site mints the session for the user
 * signed in to it; this one has a single demo viewer.
 */
async function mintSession() {
  const res = await fetch(`${baseUrl}/api/v1/embed/generate-session`, {
    method: 'POST',
    headers: { authorization: `Api-Key ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      deploymentId,
      externalId: 'demo-viewer@example.com',
      userProfile: { displayName: 'Demo Viewer' },
    }),
  });
  const body = await res.json().catch(() => ({ error: `edgeboard answered ${res.status}` }));
  if (!res.ok)
    return { status: 502, body: { error: `generate-session: ${body.code ?? res.status} ${body.error}` } };
  return { status: 200, body: { sessionId: body.sessionId, expiresAt: body.expiresAt } };
}

function send(res, status, type, body) {
  // A session is a credential: nothing between this server and the page may keep one.
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

const server = createServer(async (req, res) => {
  const { pathname } = new URL(req.url ?? '/', 'http://localhost');
  try {
    if (req.method === 'POST' && pathname === '/session') {
      const { status, body } = await mintSession();
      if (status !== 200) console.error(`[example] ${body.error}`);
      return send(res, status, 'application/json', JSON.stringify(body));
    }
    if (req.method !== 'GET') return send(res, 405, 'text/plain', 'Method not allowed');
    if (pathname === '/') {
      return send(res, 200, 'text/html; charset=utf-8', readFileSync(path.join(here, 'index.html')));
    }
    if (pathname === '/favicon.ico') {
      // edgeboard's own icon: the page shows its dashboard.
      res.writeHead(302, { location: `${baseUrl}/favicon.ico`, 'cache-control': 'public, max-age=86400' });
      return res.end();
    }
    if (pathname === '/config.json') {
      return send(res, 200, 'application/json', JSON.stringify({ baseUrl, publicId }));
    }
    // The SDK's build, its modules as they are (the page imports /sdk/index.js).
    const file = pathname.startsWith('/sdk/') ? path.join(sdkDist, pathname.slice(5)) : null;
    if (file?.startsWith(`${sdkDist}${path.sep}`) && file.endsWith('.js') && existsSync(file)) {
      return send(res, 200, 'text/javascript; charset=utf-8', readFileSync(file));
    }
    send(res, 404, 'text/plain', 'Not found');
  } catch (err) {
    console.error(`[example] ${req.method} ${pathname}: ${err.message}`);
    send(res, 502, 'application/json', JSON.stringify({ error: `Is edgeboard running at ${baseUrl}?` }));
  }
});

server.on('error', (err) => {
  console.error(
    err.code === 'EADDRINUSE'
      ? `[example] port ${port} is taken: set EXAMPLE_PORT to another one`
      : err.message,
  );
  process.exit(1);
});
server.listen(port, () => {
  console.log(`[example] the host page: http://localhost:${port}/ (dashboard ${publicId} from ${baseUrl})`);
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));
