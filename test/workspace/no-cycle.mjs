// Fails when src/dashboards imports src/workspace: the workspace (whose item answers embed the
// dashboard) depends on dashboards, never the other way. Run: node test/workspace/no-cycle.mjs
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const forbidden = [['src/dashboards', /from '\.\.\/workspace\//]];
let failed = false;
for (const [dir, pattern] of forbidden) {
  for (const file of readdirSync(dir)) {
    const text = readFileSync(join(dir, file), 'utf8');
    if (pattern.test(text)) {
      console.error(`${dir}/${file} imports across the one-way boundary`);
      failed = true;
    }
  }
}
const both = ['src/workspace', 'src/dashboards'].map((dir) =>
  readdirSync(dir).some((f) =>
    new RegExp(`from '\\.\\./${dir === 'src/workspace' ? 'dashboards' : 'workspace'}/`).test(
      readFileSync(join(dir, f), 'utf8'),
    ),
  ),
);
console.log(`workspace → dashboards: ${both[0]}, dashboards → workspace: ${both[1]}`);
if (failed || (both[0] && both[1])) process.exit(1);
