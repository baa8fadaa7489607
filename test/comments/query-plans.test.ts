// Every statement the comment routes run, captured while the requests go through HTTP, is
// explained with its bound parameters: none may scan a table without an index, so the cost of a
// comment request does not grow with the dashboard's, the tenant's or the database's comments.
import { env } from 'cloudflare:test';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { recordStatements, stopRecording } from '../../src/core/db';
import { seedAccount } from '../helpers/harness';
import {
  editComment,
  embeddableBoard,
  embedUserId,
  listThreads,
  mentionable,
  postOk,
  removeComment,
  resolveThread,
  sessionOf,
} from './fixtures';

let tables: Set<string>;

async function planOf(sql: string, params: unknown[]): Promise<string[]> {
  const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params)
    .all<{ detail: string }>();
  return results.map((r) => r.detail);
}

/** The plan lines that scan a table of the schema without an index. */
const scans = (plan: string[]) =>
  plan.filter((detail) => {
    const match = /^SCAN (\S+)/.exec(detail);
    return match !== null && !/USING (COVERING )?INDEX/.test(detail) && tables.has(match[1] as string);
  });

beforeAll(async () => {
  const { results } = await env.DB.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all<{
    name: string;
  }>();
  tables = new Set(
    results
      .map((r) => r.name)
      .filter((n) => !n.startsWith('sqlite_') && !n.startsWith('_cf_') && n !== 'd1_migrations'),
  );
});

afterEach(() => stopRecording());

describe('comment statements are index-served', () => {
  it('every foreign key of the comment tables has an index led by it (cascades never scan)', async () => {
    for (const table of ['dashboard_comments', 'dashboard_comment_mentions']) {
      const { results: fks } = await env.DB.prepare(`SELECT "from" FROM pragma_foreign_key_list(?)`)
        .bind(table)
        .all<{ from: string }>();
      expect(fks.length).toBeGreaterThan(1);
      for (const { from } of fks) {
        const plan = await planOf(`SELECT 1 FROM ${table} WHERE ${from} = ?`, [1]);
        expect(scans(plan), `${table}.${from}: ${plan.join(' | ')}`).toEqual([]);
      }
    }
  });

  it('every statement of every comment route', async () => {
    const acme = await seedAccount();
    const board = await embeddableBoard(acme);
    const alice = await sessionOf(acme, 'alice');
    const bob = await sessionOf(acme, 'bob');
    const bobId = await embedUserId(acme, 'bob');
    const log = recordStatements();
    const root = await postOk(alice, board.publicId, { body: `Hello <@${bobId}>` });
    const reply = await postOk(bob, board.publicId, { body: 'Hi', parentId: root.id });
    expect(
      (await editComment(alice, board.publicId, root.id, { body: `Hello again <@${bobId}>` })).status,
    ).toBe(200);
    for (const query of ['', 'includeResolved=true', 'resolvedOnly=true&first=1']) {
      expect((await listThreads(bob, board.publicId, query)).status).toBe(200);
    }
    const page = await listThreads(bob, board.publicId, 'first=1');
    const after = encodeURIComponent(page.body.pageInfo.endCursor);
    expect((await listThreads(bob, board.publicId, `first=1&after=${after}`)).status).toBe(200);
    expect((await mentionable(alice, board.publicId, 'search=bo')).status).toBe(200);
    expect((await mentionable(alice, board.publicId, 'first=1')).status).toBe(200);
    expect((await resolveThread(alice, board.publicId, root.id, { resolved: true })).status).toBe(200);
    expect((await resolveThread(alice, board.publicId, root.id, { resolved: false })).status).toBe(200);
    expect((await removeComment(bob, board.publicId, reply.id)).status).toBe(200);
    expect((await removeComment(alice, board.publicId, root.id)).status).toBe(200);
    stopRecording();

    const comments = log.filter((s) => /dashboard_comment|from "embed_users"/i.test(s.sql));
    expect(comments.length).toBeGreaterThan(10);
    expect(comments.some((s) => /from "embed_users"/.test(s.sql))).toBe(true);
    const offences: string[] = [];
    const seen = new Set<string>();
    for (const statement of comments) {
      if (seen.has(statement.sql)) continue;
      seen.add(statement.sql);
      const found = scans(await planOf(statement.sql, statement.params));
      if (found.length > 0) offences.push(`${found.join(', ')} :: ${statement.sql}`);
    }
    expect(offences).toEqual([]);
    // The check sees a scan when there is one.
    expect(scans(await planOf('SELECT id FROM dashboard_comments WHERE body = ?', ['x']))).not.toEqual([]);
  });
});
