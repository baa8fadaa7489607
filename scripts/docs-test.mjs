#!/usr/bin/env node
// `npm run test:docs`: proves README.md and docs/*.md run as written. Starts `npm start` on a free
// port with a fresh local state, then runs each page's shell blocks top to bottom in one bash
// (after `eval "$(npm run -s seed)"`, as the README says), and fails on any HTTP status the text
// does not announce.
//
// Conventions the pages follow (README.md, "Running the examples"):
// - ```sh blocks run; a block right after the line `<!-- docs-test: skip -->` does not (installing,
//   starting the server, deploying).
// - Every curl must answer 2xx, unless its command carries `# → <status>` (e.g. `# → 404`): then
//   it must answer exactly that status.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../test/browser/server.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const SKIP = '<!-- docs-test: skip -->';

/** The runnable ```sh blocks of a Markdown page, each with the line it starts on. */
export function shellBlocks(markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(sh|bash|shell)\s*$/.exec(lines[i]);
    if (!open) continue;
    let prev = i - 1;
    while (prev >= 0 && lines[prev].trim() === '') prev--;
    const skipped = prev >= 0 && lines[prev].trim() === SKIP;
    const body = [];
    let j = i + 1;
    while (j < lines.length && !/^```\s*$/.test(lines[j])) body.push(lines[j++]);
    if (!skipped) blocks.push({ line: i + 2, body });
    i = j;
  }
  return blocks;
}

const shellQuote = (s) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * Prefixes every command (a line, with its `\` continuations and multi-line quoted strings) with
 * the status it must answer: the `# → NNN` it carries, else any 2xx.
 */
export function instrument(block, file) {
  const out = [];
  let command = [];
  let quotes = 0;
  const flush = () => {
    if (command.length === 0) return;
    const text = command.map((c) => c.text).join('\n');
    const expected = /#\s*→\s*(\d{3})\b/.exec(text)?.[1] ?? '2xx';
    const where = `${file}:${command[0].line}: ${command[0].text.trim()}`;
    out.push(`__expect=${expected}; __where=${shellQuote(where)}`);
    out.push(text);
    command = [];
  };
  block.body.forEach((text, k) => {
    const line = block.line + k;
    if (command.length === 0 && (text.trim() === '' || text.trim().startsWith('#'))) {
      out.push(text);
      return;
    }
    command.push({ text, line });
    const code = text.replace(/(^|\s)#.*$/, (m) => (quotes % 2 === 0 ? '' : m));
    quotes += (code.match(/'/g) ?? []).length;
    if (quotes % 2 === 0 && !text.endsWith('\\')) flush();
  });
  flush();
  return out.join('\n');
}

export const PRELUDE = String.raw`
set -euo pipefail
shopt -s inherit_errexit
__expect=2xx; __where=''
# Every curl of the examples goes through this: same output, plus the status check.
curl() {
  local err status
  err=$(mktemp)
  command curl -w '%{stderr}\n__status:%{http_code}\n' "$@" 2>"$err" || { cat "$err" >&2; rm -f "$err"; echo "docs-test: curl failed at $__where" >&2; return 1; }
  status=$(sed -n 's/^__status://p' "$err" | tail -n 1)
  grep -v '^__status:' "$err" | sed '/^$/d' >&2 || true
  rm -f "$err"
  if [[ "$__expect" == 2xx && "$status" == 2?? ]] || [[ "$status" == "$__expect" ]]; then return 0; fi
  echo "docs-test: expected $__expect, got $status at $__where" >&2
  return 1
}
`;

async function main() {
  // README.md first, then the pages that fire the Cron Trigger themselves (notifications.md and
  // semantic-layer.md today), then the rest. Every page seeds a demo deployment whose rollups the
  // ticks plan and the queue builds in turn; semantic-layer.md waits for its own deployment's
  // builds, behind every earlier page's, so it runs before the other pages add theirs (behind two
  // deployments instead of nine: about a minute less in all).
  const pages = readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  const firesCron = new Set(
    pages.filter((f) => readFileSync(path.join(root, f), 'utf8').includes('/cdn-cgi/handler/scheduled')),
  );
  const files = ['README.md', ...firesCron, ...pages.filter((f) => !firesCron.has(f))];
  const adminToken = `docs-${randomBytes(12).toString('hex')}`;
  const server = await startServer({ adminToken });
  // The examples run from a scratch directory that looks like the repository root (scripts,
  // package.json, node_modules linked), so files they write (curl -o board.png) stay out of it.
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'edgeboard-docs-'));
  for (const name of ['scripts', 'package.json', 'node_modules']) {
    symlinkSync(path.join(root, name), path.join(cwd, name));
  }
  const failures = [];
  try {
    for (const file of files) {
      const blocks = shellBlocks(readFileSync(path.join(root, file), 'utf8'));
      if (blocks.length === 0) continue;
      const body = blocks.map((b) => instrument(b, file)).join('\n');
      const seeds = /npm run -s seed/.test(body);
      const script = `${PRELUDE}\n${seeds ? '' : 'eval "$(npm run -s seed)"\n'}${body}\n`;
      const started = Date.now();
      const res = spawnSync('bash', ['-c', script], {
        cwd,
        env: { ...process.env, BASE_URL: server.url, ADMIN_TOKEN: adminToken },
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      if (res.status === 0) {
        console.log(`ok   ${file} (${blocks.length} blocks, ${seconds} s)`);
      } else {
        failures.push(file);
        console.log(`FAIL ${file} (exit ${res.status})`);
        console.log(`--- stdout (last 4000 chars)\n${res.stdout.slice(-4000)}`);
        console.log(`--- stderr (last 4000 chars)\n${res.stderr.slice(-4000)}`);
      }
    }
  } finally {
    server.stop();
    rmSync(cwd, { recursive: true, force: true });
  }
  if (failures.length > 0) {
    console.error(`docs test failed: ${failures.join(', ')}`);
    process.exit(1);
  }
  console.log('docs test passed');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
