/// <reference types="vite/client" />
import { beforeAll, describe, expect, it } from 'vitest';
import { MEMBER_GRANTS, PERMISSION_NAMES, PERMISSIONS } from '../../src/core/permissions';
import { expectCube } from '../cube/cube-shape';
import { seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';

// The permission tables people read (the roles routes' Markdown, served as createRole's
// description, and the docs page) must say exactly what the auth layer checks.
const pages = import.meta.glob<string>(
  ['../../docs/users-and-roles.md', '../../src/accounts/roles.routes.md'],
  {
    query: '?raw',
    import: 'default',
    eager: true,
  },
);

type Operation = { operationId: string; description?: string };
let operations: Operation[];

beforeAll(async () => {
  const res = await api('GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  const paths = res.body.paths as Record<string, Record<string, Operation>>;
  operations = Object.values(paths).flatMap((item) => Object.values(item));
});

/** Permission → the operationIds whose served description says they need it. */
function served(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const op of operations) {
    const name = /Needs the `(\w+)` permission/.exec(op.description ?? '')?.[1];
    if (name) out[name] = [...(out[name] ?? []), op.operationId];
  }
  for (const ids of Object.values(out)) ids.sort();
  return out;
}

/** Permission → the Cube actions, the operationIds a page's table lists for it, and whether members hold it. */
function tableOf(text: string) {
  const rows: Record<string, { actions: string[]; ids: string[]; members: string }> = {};
  for (const [, name = '', actions = '', members = '', routes = ''] of text.matchAll(
    /^\| `(\w+)` \| ([^|]+) \| [^|]+ \| (yes|no) \| ([^|]+) \|$/gm,
  )) {
    rows[name] = {
      actions: [...actions.matchAll(/`(\w+)`/g)].map((m) => m[1] as string),
      members,
      ids: [...routes.matchAll(/`(\w+)`/g)].map((m) => m[1] as string).sort(),
    };
  }
  return rows;
}

describe('the permissions, as documented', () => {
  it('list every permission with the operations that declare it, in both tables', () => {
    const declared = served();
    expect(Object.keys(declared).sort()).toEqual([...PERMISSION_NAMES].sort());
    expect(Object.keys(pages)).toHaveLength(2);
    for (const [page, text] of Object.entries(pages)) {
      const table = tableOf(text);
      expect(Object.keys(table).sort(), page).toEqual([...PERMISSION_NAMES].sort());
      for (const name of PERMISSION_NAMES) {
        expect(table[name]?.ids, `${page}: ${name}`).toEqual(declared[name]);
        expect(table[name]?.members, `${page}: ${name}`).toBe(MEMBER_GRANTS[name] ? 'yes' : 'no');
        expect(table[name]?.actions, `${page}: ${name}`).toEqual(PERMISSIONS[name].grantedBy);
      }
    }
  });

  it('serve the table as createRole’s description, and each permission’s scope', () => {
    const createRole = operations.find((op) => op.operationId === 'createRole');
    expect(createRole?.description).toContain(
      '| `WorkspaceEdit` | `WorkbookEdit` + `FolderEdit` + `ReportEdit` | deployment | yes |',
    );
    const table = tableOf(pages['../../src/accounts/roles.routes.md'] ?? '');
    for (const name of PERMISSION_NAMES) {
      const row = (pages['../../src/accounts/roles.routes.md'] ?? '')
        .split('\n')
        .find((l) => l.startsWith(`| \`${name}\``));
      expect(row, name).toContain(`| ${PERMISSIONS[name].level}`);
      expect(table[name]).toBeDefined();
    }
  });
});

describe('createUser answers Cube’s User', () => {
  it('with every field Cube marks required, with Cube’s type', async () => {
    const account = await seedAccount();
    const res = await api('POST', '/api/v1/users', {
      auth: { bearer: account.key.apiKey },
      body: { email: 'required@example.com', username: 'required' },
    });
    expect(res.status).toBe(200);
    expectCube(res.body, {
      id: 'integer',
      email: 'string',
      username: 'string',
      isAdmin: 'boolean',
      notifications: 'object',
    });
  });
});
