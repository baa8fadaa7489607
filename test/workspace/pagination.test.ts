import { env } from 'cloudflare:test';
import { beforeAll, describe, expect, it } from 'vitest';
import { type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { base, roundTrips, workbook } from './helpers';

/**
 * Walking every page of the workspace list returns every item exactly once, in order, while other items are
 * inserted and edited between pages. 360 items are seeded in bulk SQL with many ties in every
 * sort key (so the id tie-breaker matters); the walk itself goes through HTTP.
 */
let acme: SeededAccount;
let d: number;
let folderId: number;

const SEEDED = 360;

beforeAll(async () => {
  acme = await seedAccount();
  d = acme.deployments[0];
  const user = acme.memberUserId;
  // Keys repeat every few items: 7 distinct updated_at, 11 created_at, 13 names (mixed case).
  await env.DB.prepare(
    `WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < ${SEEDED})
     INSERT INTO workspace_items (deployment_id, type, name, name_key, folder_id, position, created_by, updated_by,
       created_at, updated_at)
     SELECT ?1, CASE WHEN n % 9 = 0 THEN 'FOLDER' WHEN n % 4 = 0 THEN 'REPORT' ELSE 'WORKBOOK' END,
       CASE WHEN n % 2 = 0 THEN 'ITEM ' ELSE 'item ' END || (n % 13), 'item ' || (n % 13), NULL, 0, ?2, ?2,
       '2026-01-01T00:00:' || printf('%02d', n % 11) || '.000Z', '2026-02-01T00:00:' || printf('%02d', n % 7) || '.000Z'
     FROM c`,
  )
    .bind(d, user)
    .run();
  await env.DB.prepare(
    `INSERT INTO workbooks (item_id, deployment_id, slug, meta, calculated_fields)
     SELECT id, deployment_id, 'seeded-' || id, '{}', '{}' FROM workspace_items WHERE deployment_id = ? AND type = 'WORKBOOK'`,
  )
    .bind(d)
    .run();
  await env.DB.prepare(
    `INSERT INTO reports (item_id, meta, period_comparisons, preferences)
     SELECT id, '{}', '[]', '{"columnFormats":{}}' FROM workspace_items WHERE deployment_id = ? AND type = 'REPORT'`,
  )
    .bind(d)
    .run();
  // The member viewed a third of the items, with repeated view times.
  await env.DB.prepare(
    `INSERT INTO workspace_views (user_id, item_id, deployment_id, viewed_at)
     SELECT ?1, id, deployment_id, '2026-03-01T00:00:' || printf('%02d', id % 5) || '.000Z'
     FROM workspace_items WHERE deployment_id = ?2 AND id % 3 = 0`,
  )
    .bind(user, d)
    .run();
  // One seeded folder gets 40 of the items as children, for the folderId walk.
  const folderRow = await env.DB.prepare(
    `SELECT id FROM workspace_items WHERE deployment_id = ? AND type = 'FOLDER' ORDER BY id LIMIT 1`,
  )
    .bind(d)
    .first<{ id: number }>();
  folderId = folderRow?.id as number;
  await env.DB.prepare(
    `UPDATE workspace_items SET folder_id = ? WHERE id IN (SELECT id FROM workspace_items
       WHERE deployment_id = ? AND type <> 'FOLDER' ORDER BY id DESC LIMIT 40)`,
  )
    .bind(folderId, d)
    .run();
});

interface Row {
  id: number;
  type: string;
  folder_id: number | null;
  name_key: string;
  created_at: string;
  updated_at: string;
  viewed: string;
}

async function snapshot(): Promise<Row[]> {
  const rows = await env.DB.prepare(
    `SELECT i.id, i.type, i.folder_id, i.name_key, i.created_at, i.updated_at, coalesce(v.viewed_at, '') AS viewed
     FROM workspace_items i LEFT JOIN workspace_views v ON v.item_id = i.id AND v.user_id = ?
     WHERE i.deployment_id = ?`,
  )
    .bind(acme.memberUserId, d)
    .all<Row>();
  return rows.results;
}

const KEY: Record<string, (r: Row) => string> = {
  updated_at: (r) => r.updated_at,
  created_at: (r) => r.created_at,
  name: (r) => r.name_key,
  viewer_last_viewed_at: (r) => r.viewed,
};

/** The documented order: folders first, then the key in the direction, ties by id the same way. */
function expectedOrder(rows: Row[], field: string, direction: 'ASC' | 'DESC'): number[] {
  const sign = direction === 'ASC' ? 1 : -1;
  const key = KEY[field] as (r: Row) => string;
  return [...rows]
    .sort((a, b) => {
      const rank = (a.type === 'FOLDER' ? 0 : 1) - (b.type === 'FOLDER' ? 0 : 1);
      if (rank !== 0) return rank;
      const ka = key(a);
      const kb = key(b);
      if (ka !== kb) return ka < kb ? -sign : sign;
      return (a.id - b.id) * sign;
    })
    .map((r) => r.id);
}

interface Walk {
  ids: number[];
  pages: number;
}

async function walk(query: string, between: (page: number) => Promise<void>): Promise<Walk> {
  const ids: number[] = [];
  let after: string | null = null;
  let pages = 0;
  for (;;) {
    const res: any = await api('GET', `${base(d)}/workspace?${query}${after ? `&after=${after}` : ''}`, {
      auth: acme.member,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(roundTrips(res)).toBe(2);
    pages += 1;
    ids.push(...res.body.items.map((i: { id: number }) => i.id));
    if (!res.body.pageInfo.hasNextPage) return { ids, pages };
    after = res.body.pageInfo.endCursor;
    await between(pages);
    expect(pages).toBeLessThan(200);
  }
}

const FIELDS = ['updated_at', 'created_at', 'name', 'viewer_last_viewed_at'] as const;

describe('Workspace list keyset pagination', () => {
  for (const field of FIELDS) {
    for (const direction of ['DESC', 'ASC'] as const) {
      it(`walks the root by ${field} ${direction}: every item once, in order, with inserts between pages`, async () => {
        const before = await snapshot();
        const root = before.filter((r) => r.folder_id === null);
        const expected = expectedOrder(root, field, direction);
        const inserted: number[] = [];
        // Edits that leave this order's key alone must not disturb the walk either.
        const editable = field === 'name' || field === 'created_at';
        const result = await walk(
          `orderByField=${field}&orderByDirection=${direction}&first=17`,
          async (page) => {
            inserted.push(
              (await workbook(acme.member, d, { name: `Inserted ${field} ${direction} ${page}` })).id,
            );
            if (editable) {
              const victim = expected[(page * 37) % expected.length] as number;
              const type = root.find((r) => r.id === victim)?.type;
              if (type === 'WORKBOOK') {
                const res = await api('PUT', `${base(d)}/workbooks/${victim}`, {
                  auth: acme.member,
                  body: { meta: { page } },
                });
                expect(res.status).toBe(200);
              }
            }
          },
        );
        expect(result.pages).toBeGreaterThanOrEqual(Math.ceil(expected.length / 17));
        // No item twice, and every item that existed before the walk, in the documented order.
        expect(new Set(result.ids).size).toBe(result.ids.length);
        const original = new Set(expected);
        expect(result.ids.filter((id) => original.has(id))).toEqual(expected);
        // Items inserted during the walk appear only where the order puts them (never twice).
        for (const id of result.ids.filter((x) => !original.has(x))) expect(inserted).toContain(id);
      });
    }
  }

  it('walks with a types filter and a search across folders', async () => {
    const rows = (await snapshot()).filter((r) => r.type !== 'FOLDER' && r.name_key.includes('item 1'));
    const expected = expectedOrder(rows, 'name', 'ASC');
    expect(expected.length).toBeGreaterThan(60);
    // Items in the seeded folder are found too: search spans every folder.
    expect(rows.some((r) => r.folder_id === folderId)).toBe(true);
    const result = await walk(
      'types=WORKBOOK&types=REPORT&search=ITEM%201&orderByField=name&orderByDirection=ASC&first=9',
      async () => {},
    );
    expect(result.ids).toEqual(expected);
  });

  it('walks one folder’s children', async () => {
    const rows = (await snapshot()).filter((r) => r.folder_id === folderId);
    expect(rows).toHaveLength(40);
    const result = await walk(
      `folderId=${folderId}&orderByField=viewer_last_viewed_at&first=6`,
      async () => {},
    );
    expect(result.ids).toEqual(expectedOrder(rows, 'viewer_last_viewed_at', 'DESC'));
  });

  it('costs two D1 round trips and two queries whatever the page size', async () => {
    for (const first of [1, 50, 100]) {
      const res = await api('GET', `${base(d)}/workspace?first=${first}&orderByField=updated_at`, {
        auth: acme.member,
      });
      expect(res.body.items).toHaveLength(first);
      expect(res.headers.get('x-d1-round-trips')).toBe('2');
      expect(res.headers.get('x-d1-queries')).toBe('2');
    }
  });
});
