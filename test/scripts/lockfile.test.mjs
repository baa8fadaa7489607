// Node test (not workerd): what package-lock.json installs. Run by `npm run lint`.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

const read = (file) => JSON.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));
const lock = read('package-lock.json');
const manifest = read('package.json');
const packages = Object.entries(lock.packages);

/** The lock's entries for one package name, wherever npm placed them. */
const entriesOf = (name) => packages.filter(([location]) => location.endsWith(`node_modules/${name}`));

test('@scarf/scarf is the inert stand-in in the repository, never the registry package', () => {
  // swagger-ui-dist depends on @scarf/scarf only for a postinstall script that reports the
  // install over the network; package.json overrides it with vendor/scarf-inert.
  const entries = entriesOf('@scarf/scarf');
  assert.ok(entries.length > 0, 'swagger-ui-dist still depends on @scarf/scarf: expected the stand-in');
  for (const [location, entry] of entries) {
    assert.deepEqual(entry, { resolved: 'vendor/scarf-inert', link: true }, location);
  }
  const stub = lock.packages['vendor/scarf-inert'];
  assert.equal(stub.hasInstallScript, undefined);
  assert.deepEqual(read('vendor/scarf-inert/package.json').scripts, undefined);
  assert.equal(manifest.overrides['@scarf/scarf'], '$@scarf/scarf');
});

test('every dependency with an install script is approved or denied in allowScripts', () => {
  const reviewed = new Set(Object.keys(manifest.allowScripts));
  const unreviewed = packages
    // The root's own postinstall (scripts/complete-lock.mjs) is not a dependency's.
    .filter(([location, entry]) => location !== '' && entry.hasInstallScript)
    .map(([location]) => location.slice(location.lastIndexOf('node_modules/') + 'node_modules/'.length))
    .filter((name) => !reviewed.has(name));
  assert.deepEqual(unreviewed, [], 'review them: npm install-scripts approve|deny <name>');
});

test('one wrangler, one miniflare and one workerd: the root pins the test plugin’s wrangler', () => {
  for (const name of ['wrangler', 'miniflare', 'workerd']) {
    const versions = entriesOf(name).map(([, entry]) => entry.version);
    assert.equal(versions.length, 1, `${name}: ${versions.join(', ')}`);
  }
  const plugin = lock.packages['node_modules/@cloudflare/vitest-plugin'];
  assert.equal(manifest.devDependencies.wrangler, plugin.dependencies.wrangler);
});
