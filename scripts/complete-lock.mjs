#!/usr/bin/env node
// `postinstall`: a registry that serves only some platforms' builds of platform-specific packages
// (a partial mirror) makes npm leave the other platforms' optional packages (biome, workerd for
// macOS/Windows/musl) out of package-lock.json, and `npm ci` then refuses the lock elsewhere. This
// adds such missing entries as npm writes them: optional, with their os/cpu/libc. When nothing is
// missing (the usual case) it leaves the file untouched, byte for byte, so a fresh `npm install`
// does not modify the committed lock.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const file = path.join(root, 'package-lock.json');
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;

/** os, cpu and libc from names like cli-darwin-arm64, workerd-windows-64, cli-linux-x64-musl. */
function platformOf(name) {
  const base = name.split('/').pop();
  const os = /android/.test(base)
    ? 'android'
    : /darwin/.test(base)
      ? 'darwin'
      : /win32|windows/.test(base)
        ? 'win32'
        : /linux/.test(base)
          ? 'linux'
          : null;
  const cpu = /arm64/.test(base) ? 'arm64' : /x64|-64\b/.test(base) ? 'x64' : null;
  if (!os || !cpu) return null;
  return { os: [os], cpu: [cpu], ...(/musl/.test(base) ? { libc: ['musl'] } : {}) };
}

let added = 0;
for (const [location, pkg] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(pkg.optionalDependencies ?? {})) {
    const parentDir = location.slice(0, location.lastIndexOf('node_modules/'));
    const sibling = `${parentDir}node_modules/${name}`;
    const nested = `${location}/node_modules/${name}`;
    if (packages[nested] || packages[sibling]?.version === version) continue;
    const platform = platformOf(name);
    if (!platform) continue;
    const target = packages[sibling] ? nested : sibling;
    // Keys in npm's order, so a later `npm install` rewrites nothing.
    packages[target] = {
      version,
      cpu: platform.cpu,
      ...(pkg.dev ? { dev: true } : {}),
      ...(platform.libc ? { libc: platform.libc } : {}),
      optional: true,
      os: platform.os,
    };
    added += 1;
  }
}

if (added === 0) process.exit(0);
lock.packages = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: added ${added} optional platform entries`);
