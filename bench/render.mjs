// Rendering: PNG and PDF of the 20-widget sample dashboard (time and size, first and warm
// renders, one at a time: a render is CPU-bound, so its wall time here is its CPU time plus one
// local D1 read), what the renderer adds to the bundle, and the embed viewer page under load.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const SAMPLES = 20;

async function must(promise, what) {
  const res = await promise;
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The sample dashboard of test/render, built over HTTP: reports, draft, publish, embedding on. */
async function seedDashboard(api, auth, deploymentId) {
  const fixture = JSON.parse(
    readFileSync(path.join(root, 'test/render/fixtures/business-review.json'), 'utf8'),
  );
  const base = `/api/v1/deployments/${deploymentId}`;
  const workbook = await must(
    api('POST', `${base}/workbooks`, { auth, body: { name: 'Bench review' } }),
    'workbook',
  );
  const ids = new Map();
  for (const s of fixture.reportSnapshots) {
    const report = await must(
      api('POST', `${base}/reports`, {
        auth,
        body: { name: s.name, title: s.title, spec: s.spec, workbookId: workbook.id },
      }),
      'report',
    );
    ids.set(s.reportId, report.id);
  }
  const config = structuredClone(fixture.config);
  for (const w of config.widgets) if (w.config?.reportId) w.config.reportId = ids.get(w.config.reportId);
  await must(
    api('PUT', `${base}/workbooks/${workbook.id}/dashboard`, { auth, body: { dashboardDraft: config } }),
    'draft',
  );
  const published = await must(
    api('POST', `${base}/workbooks/${workbook.id}/publish`, { auth, body: { title: 'Bench review' } }),
    'publish',
  );
  await must(
    api('PATCH', `/api/v1/embed/dashboard/${published.publicId}`, { auth, body: { allowEmbed: true } }),
    'embed',
  );
  return { workbookId: workbook.id, publicId: published.publicId, widgets: config.widgets.length };
}

const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;

/** Sizes of the bundle the bench just built (.bench/dist), raw and gzipped as Cloudflare counts them. */
function bundleSizes() {
  const dir = path.join(root, '.bench', 'dist');
  // The bench's own entry (bench/geo-entry.js) is copied next to the bundle but never deployed.
  const files = readdirSync(dir).filter(
    (f) => !f.endsWith('.map') && !f.endsWith('.md') && f !== 'bench-geo-entry.js',
  );
  let raw = 0;
  let gzip = 0;
  const parts = [];
  for (const file of files) {
    const bytes = readFileSync(path.join(dir, file));
    const zipped = gzipSync(bytes).byteLength;
    raw += bytes.byteLength;
    gzip += zipped;
    const label = file.endsWith('.wasm')
      ? 'resvg WASM'
      : file.endsWith('.woff')
        ? `font ${file.replace(/^[0-9a-f]+-/, '')}`
        : file;
    parts.push(`${label}: ${kib(bytes.byteLength)} (gzip ${kib(zipped)})`);
  }
  return [...parts, `total: ${kib(raw)} (gzip ${kib(gzip)}; Workers paid plan limit 10 MiB gzip)`];
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

/** Sequential renders through the endpoint: wall time of each (≈ its CPU time: one D1 read besides). */
async function timeRenders(url, renderPath, bearer) {
  const times = [];
  let bytes = 0;
  let status = 0;
  for (let i = 0; i <= SAMPLES; i++) {
    const started = performance.now();
    const res = await fetch(`${url}${renderPath}`, { headers: { authorization: `Bearer ${bearer}` } });
    const body = new Uint8Array(await res.arrayBuffer());
    times.push(performance.now() - started);
    bytes = body.byteLength;
    status = res.status;
  }
  const cold = times.shift();
  times.sort((a, b) => a - b);
  return { cold, p50: percentile(times, 50), p99: percentile(times, 99), bytes, status };
}

export default async function render(ctx) {
  const { api, world, url } = ctx;
  const deploymentId = world.deployments[0];
  const board = await seedDashboard(api, world.admin, deploymentId);
  const session = await must(
    api('POST', '/api/v1/embed/generate-session', {
      auth: world.key,
      body: { deploymentId, externalId: 'bench-viewer', userProfile: { displayName: 'Bench Viewer' } },
    }),
    'session',
  );
  const renderPath = (format) =>
    `/api/v1/deployments/${deploymentId}/workbooks/${board.workbookId}/dashboard/render?format=${format}`;
  return [
    {
      name: `render ${board.widgets}-widget dashboard: PNG and PDF, ${SAMPLES} sequential renders each`,
      async run() {
        const lines = [];
        for (const format of ['png', 'pdf']) {
          const r = await timeRenders(url, renderPath(format), world.member.bearer);
          lines.push(
            `${format.toUpperCase()}: status ${r.status}, ${(r.bytes / 1024).toFixed(1)} KiB, first ${r.cold.toFixed(0)} ms (WASM + font load), then p50 ${r.p50.toFixed(0)} ms, p99 ${r.p99.toFixed(0)} ms`,
          );
        }
        return lines;
      },
    },
    {
      name: 'Worker bundle (what rendering adds to the upload)',
      async run() {
        return bundleSizes();
      },
    },
    {
      name: 'GET /embed/dashboard/{publicId} (viewer page, 20 widgets)',
      method: 'GET',
      path: `/embed/dashboard/${board.publicId}?session=${encodeURIComponent(session.sessionId)}`,
      floor: 'kv+d1',
    },
  ];
}
