// Node test (not workerd): the cycle check must see type-only imports, top-level files as
// nodes, and report every cycle. Run by `npm run lint`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, test } from 'node:test';

const script = new URL('../../scripts/check-cycles.mjs', import.meta.url).pathname;
const dirs = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tree(files) {
  const dir = mkdtempSync(join(tmpdir(), 'cycles-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return spawnSync(process.execPath, [script, dir], { encoding: 'utf8' });
}

test('a one-way graph passes', () => {
  const run = tree({
    'env.ts': "export type { X } from './core/x';\n",
    'core/x.ts': 'export type X = 1;\n',
    'a/a.ts': "import { y } from '../b/b';\nimport type { X } from '../core/x';\n",
    'b/b.ts': "import type { X } from '../env';\nexport const y = 1;\n",
  });
  assert.equal(run.status, 0, run.stderr);
});

test('a type-only cycle through a top-level file fails and names every edge', () => {
  const run = tree({
    'env.ts': "import type { P } from './auth/p';\nexport type E = P;\n",
    'auth/p.ts': "import type { E } from '../env';\nexport type P = 1;\n",
    'a/a.ts': "import { b } from '../b/b';\nexport const a = 1;\n",
    'b/b.ts': "export { a } from '../a/a';\nexport const b = 2;\n",
  });
  assert.equal(run.status, 1);
  assert.match(run.stderr, /cycle: auth -> env -> auth/);
  assert.match(run.stderr, /env -> auth: env\.ts/);
  assert.match(run.stderr, /cycle: a -> b -> a/);
  assert.match(run.stderr, /2 import cycle\(s\)/);
});

test('a longer cycle is reported once', () => {
  const run = tree({
    'a/x.ts': "import '../b/x';\n",
    'b/x.ts': "const m = await import('../c/x');\n",
    'c/x.ts': "import type { T } from '../a/x';\n",
  });
  assert.equal(run.status, 1);
  assert.equal(run.stderr.match(/^cycle:/gm)?.length, 1);
  assert.match(run.stderr, /cycle: a -> b -> c -> a/);
});
