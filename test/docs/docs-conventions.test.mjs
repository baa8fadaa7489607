// The docs test's own conventions (scripts/docs-test.mjs): which blocks run, and that a status
// the text does not announce fails the run, against a local stub server. `npm run test:docs`.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { after, before, test } from 'node:test';
import { instrument, PRELUDE, shellBlocks } from '../../scripts/docs-test.mjs';

let server;
let base;

before(async () => {
  server = http.createServer((req, res) => {
    res.writeHead(req.url === '/ok' ? 200 : 404, { 'content-type': 'application/json' });
    res.end('{"id":7}');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server.close());

/** Runs a page's blocks as the docs test does; resolves to the exit code and stderr. */
function run(markdown) {
  const script = `${PRELUDE}\n${shellBlocks(markdown)
    .map((b) => instrument(b, 'page.md'))
    .join('\n')}`;
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { env: { ...process.env, B: base } });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

const sh = (body) => `\`\`\`sh\n${body}\n\`\`\`\n`;

test('a 2xx, and an error announced with # → <status>, pass', async () => {
  const { code, stderr } = await run(sh('curl -s $B/ok\ncurl -s $B/missing   # → 404'));
  assert.equal(code, 0, stderr);
});

test('an unannounced error fails, naming the page and line', async () => {
  const { code, stderr } = await run(sh('curl -s $B/ok\ncurl -s $B/missing'));
  assert.notEqual(code, 0);
  assert.match(stderr, /expected 2xx, got 404 at page\.md:3: curl -s \$B\/missing/);
});

test('an announced error that does not happen fails', async () => {
  const { code, stderr } = await run(sh('curl -s $B/ok   # → 404'));
  assert.notEqual(code, 0);
  assert.match(stderr, /expected 404, got 200/);
});

test('a failing curl inside $(…) or a pipe stops the page', async () => {
  const { code } = await run(sh('X=$(curl -s $B/missing | node scripts/pick.mjs id)\ncurl -s $B/ok'));
  assert.notEqual(code, 0);
});

test('a multi-line command carries its marker; skipped blocks do not run', async () => {
  const page = `${sh('curl -s -X POST $B/missing -d \'{\n  "a": 1}\'   # → 404')}\n<!-- docs-test: skip -->\n${sh('curl -s $B/missing')}`;
  assert.equal(shellBlocks(page).length, 1);
  const { code, stderr } = await run(page);
  assert.equal(code, 0, stderr);
});
