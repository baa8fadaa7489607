#!/usr/bin/env node
// Generates worker-configuration.d.ts, the types of wrangler.toml's bindings, with `wrangler types`
// (offline). src/core/env.ts builds `Bindings` on it, so a binding added to wrangler.toml is typed
// once regenerated. The output is committed: a fresh clone type-checks without this step.
//
// The options keep the output the same on every machine: the runtime's types come from the
// @cloudflare/workers-types package (no `--include-runtime`), vars are typed `string` rather than
// their current literal values, and `--env-file=/dev/null` keeps a local .dev.vars (secrets written
// by `npm start`) out of it; the secrets are declared in src/core/env.ts instead.
//
// `--check`: fail (exit 1) instead of writing when the committed file is not what wrangler.toml
// generates, for CI. `wrangler types --check` compares only a hash of the configuration, so this
// regenerates and compares the text, then puts the committed file back.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const check = process.argv.includes('--check');
const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const file = path.join(root, 'worker-configuration.d.ts');
const wrangler = path.join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');
const args = [
  'types',
  '--include-runtime=false',
  '--strict-vars=false',
  '--env-file=/dev/null',
  '--env-interface=WranglerBindings',
];

const read = () => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

const before = read();
const run = spawnSync(process.execPath, [wrangler, ...args], { cwd: root, encoding: 'utf8' });
const after = read();
if (run.status !== 0) {
  if (check) writeFileSync(file, before);
  console.error(run.stdout, run.stderr);
  throw new Error('wrangler types failed');
}
if (after !== before) {
  if (check) {
    writeFileSync(file, before);
    console.error('[edgeboard] worker-configuration.d.ts is stale: run npm run types');
    process.exit(1);
  }
  console.log('[edgeboard] regenerated worker-configuration.d.ts');
}
