#!/usr/bin/env node
// Fails when the folders of src/ import each other in a cycle. Each folder of src/ is one node,
// each top-level file of src/ is its own node; every import counts, type-only ones included,
// because a type cycle still couples two folders. Prints every elementary cycle, with one
// importing file per edge, so a reader sees where to cut.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const root = resolve(process.argv[2] ?? 'src');
const SOURCE = /\.(m?[jt]sx?)$/;
const IMPORT =
  /(?:^|[^\w.])(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]|(?:^|[^\w.])import\s*\(?\s*['"]([^'"]+)['"]/gm;

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return SOURCE.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The node a path inside src/ belongs to: its top folder, or the file itself at the top. */
function nodeOf(path) {
  const parts = relative(root, path).split(sep);
  if (parts[0] === '..' || parts[0] === '') return null;
  return parts.length === 1 ? parts[0].replace(SOURCE, '') : parts[0];
}

/** edges.get(from).get(to) = the first file of `from` seen importing `to`. */
const edges = new Map();
for (const file of files(root)) {
  const from = nodeOf(file);
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(IMPORT)) {
    const specifier = match[1] ?? match[2];
    if (!specifier?.startsWith('.')) continue;
    const to = nodeOf(resolve(dirname(file), specifier));
    if (!to || to === from) continue;
    if (!edges.has(from)) edges.set(from, new Map());
    if (!edges.get(from).has(to)) edges.get(from).set(to, relative(root, file));
  }
}

// Every elementary cycle, each reported once (from its smallest node); the graph is a dozen nodes.
const nodes = [...new Set([...edges.keys(), ...[...edges.values()].flatMap((m) => [...m.keys()])])].sort();
const cycles = [];
for (const start of nodes) {
  const walk = (node, path) => {
    for (const next of edges.get(node)?.keys() ?? []) {
      if (next === start) cycles.push([...path]);
      else if (next > start && !path.includes(next)) walk(next, [...path, next]);
    }
  };
  walk(start, [start]);
}

if (cycles.length === 0) {
  console.log(
    `check-cycles: no import cycle between the ${nodes.length} nodes of ${relative(process.cwd(), root) || '.'}`,
  );
  process.exit(0);
}
for (const cycle of cycles) {
  const ring = [...cycle, cycle[0]];
  console.error(`cycle: ${ring.join(' -> ')}`);
  for (let i = 0; i < cycle.length; i++) {
    console.error(`  ${ring[i]} -> ${ring[i + 1]}: ${edges.get(ring[i]).get(ring[i + 1])}`);
  }
}
console.error(`check-cycles: ${cycles.length} import cycle(s) between folders of src/`);
process.exit(1);
