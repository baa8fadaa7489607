#!/usr/bin/env node
// `curl … | node scripts/pick.mjs <path>`: prints one field of a JSON answer, so shell examples can
// keep an id without jq. The path is dotted (`id`, `items.0.id`, `account.id`). A missing field
// is an error that shows the answer, so a failed step stops the example where it failed.
import { text } from 'node:stream/consumers';

const [field] = process.argv.slice(2);
if (!field) {
  console.error('Usage: … | node scripts/pick.mjs <dotted.path>');
  process.exit(2);
}
const input = await text(process.stdin);
let value;
try {
  value = field.split('.').reduce((v, key) => (v == null ? undefined : v[key]), JSON.parse(input));
} catch {
  value = undefined;
}
if (value === undefined || value === null) {
  console.error(`pick: no "${field}" in ${input.slice(0, 500)}`);
  process.exit(1);
}
console.log(typeof value === 'object' ? JSON.stringify(value) : String(value));
