// The Worker bundled as `wrangler deploy` would, and its files as Miniflare modules: what the
// benchmarks (scripts/bench.mjs, scripts/mint-bench.mjs) run in workerd.
import { execFileSync } from 'node:child_process';
import { readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

/** Bundles the checkout at `root` into `outDir` (emptied first), with `wrangler` (its own by default). */
export function bundleWorker(
  root,
  outDir,
  wrangler = path.join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js'),
) {
  rmSync(outDir, { recursive: true, force: true });
  execFileSync(process.execPath, [wrangler, 'deploy', '--dry-run', '--outdir', outDir], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' },
  });
}

/** Every file of the bundle in `outDir` as a module, typed by its extension, `entry` first. */
export function bundledModules(outDir, entry) {
  const type = (file) =>
    /\.m?js$/.test(file)
      ? 'ESModule'
      : file.endsWith('.wasm')
        ? 'CompiledWasm'
        : file.endsWith('.map')
          ? null
          : // The routers' operation docs (the Text rule of wrangler.toml); fonts and the rest are Data.
            file.endsWith('.md')
            ? 'Text'
            : 'Data';
  const files = readdirSync(outDir, { recursive: true }).map(String);
  // The entry module must come first: the bench's own, which wraps index.js.
  files.sort((a, b) => (a === entry ? -1 : b === entry ? 1 : a.localeCompare(b)));
  return files
    .filter((f) => type(f) !== null && !statSync(path.join(outDir, f)).isDirectory())
    .map((f) => ({ type: type(f), path: path.join(outDir, f) }));
}

/** The operator token the benches' Worker accepts on `/admin`. */
export const OPERATOR_TOKEN = 'bench-operator-token';

/** The secrets and switches the benches give the Worker on top of wrangler.toml's bindings. */
export const BENCH_BINDINGS = {
  ADMIN_TOKEN: OPERATOR_TOKEN,
  SESSION_SIGNING_KEY: 'bench-session-signing-key-0123456789abcdef',
  EXPOSE_DB_METRICS: '1',
  ENV_VARS_KEY: 'bench-env-vars-key-0123456789abcdef0123456789',
};
