#!/usr/bin/env node
// `npm run typecheck`: the generated binding types are current (scripts/worker-types.mjs --check),
// then every TypeScript project type-checks: the Worker (tsconfig.json), the tests with the Worker
// (test/tsconfig.json), the viewer's browser code (tsconfig.client.json) and the embed SDK
// (sdk/tsconfig.json). The projects are independent and tsc uses one core, so they run side by
// side, as many at once as there are cores; each one's output is printed whole when it ends.
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');

/** Runs `node <args>` in the root; answers its exit code and everything it printed. */
function run(args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

const types = await run([path.join(root, 'scripts', 'worker-types.mjs'), '--check']);
process.stdout.write(types.output);
if (types.code !== 0) process.exit(types.code);

// The longest first, so the short ones fill in beside it.
const projects = ['test/tsconfig.json', 'tsconfig.json', 'tsconfig.client.json', 'sdk/tsconfig.json'];
const queue = [...projects];
let failed = false;
async function worker() {
  for (let project = queue.shift(); project !== undefined; project = queue.shift()) {
    const { code, output } = await run([tsc, '--noEmit', '-p', project]);
    if (output) process.stdout.write(`tsc -p ${project}:\n${output}`);
    if (code !== 0) {
      failed = true;
      console.error(`[edgeboard] tsc -p ${project} failed (exit ${code})`);
    }
  }
}
await Promise.all(Array.from({ length: Math.min(projects.length, availableParallelism()) }, worker));
if (failed) process.exit(1);
