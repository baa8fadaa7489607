import { beforeAll, describe, expect, it } from 'vitest';
import { expectError, type SeededAccount, seedAccount } from '../helpers/harness';
import { api } from '../helpers/http';
import { clockAt, platform } from '../helpers/platform';
import { base, draft, folder, queries, report, roundTrips, workbook } from './helpers';

let acme: SeededAccount;
let other: SeededAccount;
let d: number;
const ids: Record<string, number> = {};

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute)).toISOString();

/**
 * Root: folders Beta (t=3) and alpha (t=1); workbooks "Zeta report book" (t=2), "apple" (t=5);
 * report "Mango" (t=4). Inside alpha: workbook "Nested apple" (t=6) and sub-folder "Inner" (t=7).
 */
beforeAll(async () => {
  acme = await seedAccount();
  other = await seedAccount();
  d = acme.deployments[0];
  const make = async (minute: number, key: string, create: () => Promise<{ id: number }>) => {
    platform.clock = clockAt(at(minute));
    ids[key] = (await create()).id;
  };
  await make(1, 'alpha', () => folder(acme.member, d, { name: 'alpha' }));
  await make(2, 'zeta', () => workbook(acme.member, d, { name: 'Zeta report book' }));
  await make(3, 'beta', () => folder(acme.admin, d, { name: 'Beta' }));
  await make(4, 'mango', () => report(acme.member, d, { name: 'Mango' }));
  await make(5, 'apple', () => workbook(acme.admin, d, { name: 'apple' }));
  await make(6, 'nested', () => workbook(acme.member, d, { name: 'Nested apple', folderId: ids.alpha }));
  await make(7, 'inner', () => folder(acme.member, d, { name: 'Inner', parentId: ids.alpha }));
  // Another account's items must never show up.
  await workbook(other.member, other.deployments[0], { name: 'apple of another account' });
  platform.clock = undefined;
});

const list = (query = '', auth: { bearer: string } = acme.member) =>
  api('GET', `${base(d)}/workspace${query ? `?${query}` : ''}`, { auth });

const names = (res: { body: { items: { name: string }[] } }) => res.body.items.map((i) => i.name);

describe('GET /workspace', () => {
  it('lists the root level, folders first, each group by updated_at DESC, in two D1 round trips', async () => {
    const res = await list();
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['Beta', 'alpha', 'apple', 'Mango', 'Zeta report book']);
    expect(res.body.items.map((i: { type: string }) => i.type)).toEqual([
      'FOLDER',
      'FOLDER',
      'WORKBOOK',
      'REPORT',
      'WORKBOOK',
    ]);
    expect(res.body.pageInfo).toMatchObject({ hasNextPage: false, hasPreviousPage: false });
    expect(roundTrips(res)).toBe(2);
    expect(queries(res)).toBe(2);
  });

  it('orders by each field in each direction, folders always first', async () => {
    const cases: [string, string[]][] = [
      [
        'orderByField=updated_at&orderByDirection=ASC',
        ['alpha', 'Beta', 'Zeta report book', 'Mango', 'apple'],
      ],
      [
        'orderByField=created_at&orderByDirection=DESC',
        ['Beta', 'alpha', 'apple', 'Mango', 'Zeta report book'],
      ],
      [
        'orderByField=created_at&orderByDirection=ASC',
        ['alpha', 'Beta', 'Zeta report book', 'Mango', 'apple'],
      ],
      ['orderByField=name&orderByDirection=ASC', ['alpha', 'Beta', 'apple', 'Mango', 'Zeta report book']],
      ['orderByField=name', ['Beta', 'alpha', 'Zeta report book', 'Mango', 'apple']],
    ];
    for (const [query, expected] of cases) {
      expect(names(await list(query)), query).toEqual(expected);
    }
  });

  it('orders by the caller’s last view; never-viewed items sort lowest, by id', async () => {
    const view = async (minute: number, path: string, auth = acme.member) => {
      platform.clock = clockAt(at(100 + minute));
      expect((await api('GET', `${base(d)}/${path}`, { auth })).status).toBe(200);
    };
    await view(1, `workbooks/${ids.zeta}`);
    await view(2, `reports/${ids.mango}`);
    await view(3, `folders/${ids.alpha}`);
    // The admin's views do not count for the member.
    await view(4, `workbooks/${ids.apple}`, acme.admin);
    platform.clock = undefined;
    const desc = await list('orderByField=viewer_last_viewed_at');
    expect(names(desc)).toEqual(['alpha', 'Beta', 'Mango', 'Zeta report book', 'apple']);
    expect(desc.body.items[0].viewerLastViewedAt).toBe(at(103));
    expect(desc.body.items[4].viewerLastViewedAt).toBeNull();
    const asc = await list('orderByField=viewer_last_viewed_at&orderByDirection=ASC');
    expect(names(asc)).toEqual(['Beta', 'alpha', 'apple', 'Zeta report book', 'Mango']);
    const adminView = await list('orderByField=viewer_last_viewed_at&types=WORKBOOK', acme.admin);
    expect(names(adminView)).toEqual(['apple', 'Zeta report book']);
  });

  it('filters by types, one or repeated', async () => {
    expect(names(await list('types=WORKBOOK'))).toEqual(['apple', 'Zeta report book']);
    expect(names(await list('types=REPORT&types=FOLDER'))).toEqual(['Beta', 'alpha', 'Mango']);
    expect(names(await list('types=FOLDER&types=FOLDER'))).toEqual(['Beta', 'alpha']);
  });

  it('lists a folder’s direct children with folderId', async () => {
    const res = await list(`folderId=${ids.alpha}`);
    expect(names(res)).toEqual(['Inner', 'Nested apple']);
    expect(res.body.items[1]).toMatchObject({
      folderId: ids.alpha,
      folderPath: [{ id: ids.alpha, name: 'alpha' }],
    });
    expect(names(await list(`folderId=${ids.beta}`))).toEqual([]);
  });

  it('searches case-insensitively across all folders, or among a folder’s children', async () => {
    expect(names(await list('search=APPLE'))).toEqual(['Nested apple', 'apple']);
    expect(names(await list('search=a&types=FOLDER&orderByField=name&orderByDirection=ASC'))).toEqual([
      'alpha',
      'Beta',
    ]);
    expect(names(await list(`search=apple&folderId=${ids.alpha}`))).toEqual(['Nested apple']);
    expect(names(await list('search=%20%20'))).toEqual(names(await list()));
    expect(names(await list('search=nothing-matches'))).toEqual([]);
    // LIKE wildcards are plain characters.
    expect(names(await list('search=%25'))).toEqual([]);
    expect(names(await list('search=_'))).toEqual([]);
  });

  it('answers every item in the workspace item shape', async () => {
    await api('PUT', `${base(d)}/workbooks/${ids.apple}/favorite`, { auth: acme.member });
    await api('PUT', `${base(d)}/workbooks/${ids.apple}/dashboard`, {
      auth: acme.member,
      body: { dashboardDraft: draft(1) },
    });
    await api('POST', `${base(d)}/workbooks/${ids.apple}/publish`, { auth: acme.member });
    const res = await list('types=WORKBOOK&orderByField=name&orderByDirection=ASC');
    const apple = res.body.items[0];
    expect(apple).toMatchObject({
      id: ids.apple,
      type: 'WORKBOOK',
      deploymentId: d,
      name: 'apple',
      folderId: null,
      folderPath: [],
      createdBy: acme.adminUserId,
      userId: acme.adminUserId,
      user: { id: acme.adminUserId, email: expect.any(String), firstName: '', picture: '' },
      isFavorite: true,
      slug: expect.stringMatching(/^apple-/),
      meta: {},
      calculatedFields: {},
      dashboardDraft: draft(1),
      dashboardPublished: draft(1),
      publishedDashboard: { workbookId: ids.apple, versionNumber: 1, config: draft(1), allowEmbed: false },
    });
    expect(res.body.items[1]).toMatchObject({
      name: 'Zeta report book',
      isFavorite: false,
      publishedDashboard: null,
    });
    // Favourites are per user.
    const adminRes = await list('types=WORKBOOK&orderByField=name&orderByDirection=ASC', acme.admin);
    expect(adminRes.body.items[0].isFavorite).toBe(false);
  });

  it('pages with first/after and reports pageInfo', async () => {
    const one = await list('first=2');
    expect(names(one)).toEqual(['Beta', 'alpha']);
    expect(one.body.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    expect(typeof one.body.pageInfo.startCursor).toBe('string');
    const two = await list(`first=2&after=${one.body.pageInfo.endCursor}`);
    expect(two.body.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const three = await list(`first=2&after=${two.body.pageInfo.endCursor}`);
    expect(three.body.pageInfo.hasNextPage).toBe(false);
    expect([...names(one), ...names(two), ...names(three)]).toEqual(names(await list()));
    expect(roundTrips(three)).toBe(2);
  });

  it.each([
    'types=DASHBOARD',
    'types=workbook',
    'types=FOLDER&types=NOPE',
    'orderByField=title',
    'orderByField=name&orderByField=created_at',
    'orderByDirection=asc',
    'orderByDirection=UP',
    'first=0',
    'first=101',
    'first=1.5',
    'first=abc',
    'folderId=abc',
    // folderId=0 is the root level (Cube's folderId ≥ 0).
    `search=${'s'.repeat(256)}`,
    'sort=name',
  ])('rejects %s with 400 naming the parameter', async (query) => {
    const res = await list(query);
    expectError(res, 400, 'VALIDATION_FAILED');
    expect(res.body.details[0].path).toBe(query.split('=')[0]);
  });

  it('rejects a malformed cursor, or one from another order or filter, with 400', async () => {
    const page = await list('first=1');
    const cursor = page.body.pageInfo.endCursor;
    for (const query of [
      'after=garbage',
      `after=${cursor}&orderByField=name`,
      `after=${cursor}&orderByDirection=ASC`,
      `after=${cursor}&types=WORKBOOK`,
      `after=${cursor}&search=a`,
      `after=${cursor}&folderId=${ids.alpha}`,
      `after=${btoa(JSON.stringify(['ws:updated_at:DESC:x', 0, 'a', 1]))}`,
    ]) {
      expectError(await list(query), 400, 'INVALID_CURSOR');
    }
  });

  it('answers 404 for a folderId that is not a folder of this deployment', async () => {
    const foreign = await folder(acme.member, acme.deployments[1], { name: 'Elsewhere' });
    for (const folderId of [foreign.id, ids.apple, 999999]) {
      const res = await list(`folderId=${folderId}`);
      expectError(res, 404, 'NOT_FOUND');
    }
  });

  it('answers 404 for another account’s deployment and shows only this account’s items', async () => {
    expectError(await list('', other.member), 404, 'NOT_FOUND');
    const theirs = await api('GET', `${base(other.deployments[0])}/workspace`, { auth: acme.member });
    expectError(theirs, 404, 'NOT_FOUND');
    const mine = await list('search=apple');
    expect(names(mine)).not.toContain('apple of another account');
    // The other deployment of the same account is a separate workspace.
    const second = await api('GET', `${base(acme.deployments[1])}/workspace?search=apple`, {
      auth: acme.member,
    });
    expect(second.status).toBe(200);
    expect(names(second)).toEqual([]);
  });
});
