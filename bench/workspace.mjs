// Workspace scenarios: the workspace list's first page with 10,000 and with 100,000 items in the deployment
// (the cost of a page must not grow with the workspace), search over the 100,000, and
// saving a 50-widget dashboard.
// Items are seeded in bulk SQL (INSERT … SELECT over a recursive counter), most at the root so
// the listed level really holds the whole workspace.

const CHUNK = 25_000;
const FIRST_PAGE_LARGE = 'workspace list first page, first=50 updated_at, 100,000 items';
const FIRST_PAGE_LARGE_4 = `${FIRST_PAGE_LARGE} (4 conn.)`;
/** The seeded items, told apart from items other scenarios create through the API. */
const SEEDED = "name_key GLOB 'item [0-9]*'";

/** `count` items in `deploymentId`: 1 in 50 a folder, 1 in 4 a report, the rest workbooks. */
async function seedItems(d1, deploymentId, count, userId) {
  // Other bench files may add their own items to the same deployments: count and touch only ours.
  const existing = await d1
    .prepare(`SELECT count(*) AS n FROM workspace_items WHERE deployment_id = ? AND ${SEEDED}`)
    .bind(deploymentId)
    .first();
  if (existing.n >= count) return;
  for (let start = 0; start < count; start += CHUNK) {
    const end = Math.min(count, start + CHUNK);
    // Timestamps spread over a year, updated_at scrambled so its order differs from id order.
    await d1
      .prepare(
        `WITH RECURSIVE c(n) AS (SELECT ?1 UNION ALL SELECT n + 1 FROM c WHERE n < ?2)
         INSERT INTO workspace_items (deployment_id, type, name, name_key, folder_id, position, created_by,
           updated_by, created_at, updated_at)
         SELECT ?3, CASE WHEN n % 50 = 0 THEN 'FOLDER' WHEN n % 4 = 0 THEN 'REPORT' ELSE 'WORKBOOK' END,
           'Item ' || n, 'item ' || n, NULL, 0, ?4, ?4,
           strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || (n * 300) || ' seconds'),
           strftime('%Y-%m-%dT%H:%M:%fZ', '2026-01-01', '+' || ((n * 7919) % 31536000) || ' seconds')
         FROM c`,
      )
      .bind(start + 1, end, deploymentId, userId)
      .run();
  }
  await d1.batch([
    d1
      .prepare(
        `INSERT INTO workbooks (item_id, deployment_id, slug, meta, calculated_fields)
         SELECT id, deployment_id, 'bench-' || id, '{}', '{}' FROM workspace_items
         WHERE deployment_id = ? AND type = 'WORKBOOK' AND ${SEEDED}`,
      )
      .bind(deploymentId),
    d1
      .prepare(
        `INSERT INTO reports (item_id, meta, period_comparisons, preferences)
         SELECT id, '{}', '[]', '{"columnFormats":{}}' FROM workspace_items
         WHERE deployment_id = ? AND type = 'REPORT' AND ${SEEDED}`,
      )
      .bind(deploymentId),
    // A tenth of the workbooks and reports live one level down, in the first folders.
    d1
      .prepare(
        `UPDATE workspace_items SET folder_id = (SELECT min(id) FROM workspace_items
           WHERE deployment_id = ?1 AND type = 'FOLDER' AND ${SEEDED})
         WHERE deployment_id = ?1 AND type <> 'FOLDER' AND id % 10 = 0 AND ${SEEDED}`,
      )
      .bind(deploymentId),
  ]);
}

function dashboard(widgets) {
  return {
    kind: 'CLASSIC',
    title: 'Bench dashboard',
    layout: { cols: { lg: 12, md: 10, sm: 6, xs: 4, xxs: 2 }, rowHeight: 30, margin: [8, 8] },
    theme: { primaryColor: '#0a6cff', widgets: { border: { radius: '6px' } } },
    widgets: Array.from({ length: widgets }, (_, i) => ({
      id: `widget-${i}`,
      type: i % 5 === 0 ? 'TEXT' : 'CHART',
      position: { x: (i % 4) * 3, y: Math.floor(i / 4) * 4, w: 3, h: 4 },
      config:
        i % 5 === 0 ? { text: `Note ${i}` } : { title: `Chart ${i}`, query: { measures: ['orders.count'] } },
      responsiveLayouts: { sm: { x: 0, y: i * 4, w: 6, h: 4 } },
    })),
  };
}

export default async function workspace(ctx) {
  const { world, d1 } = ctx;
  const [small, large] = world.deployments;
  const started = Date.now();
  await seedItems(d1, small, 10_000, world.adminUserId);
  await seedItems(d1, large, 100_000, world.adminUserId);
  console.log(`workspace bench: seeded 10,000 + 100,000 items in ${Date.now() - started} ms`);

  const created = await ctx.api('POST', `/api/v1/deployments/${small}/workbooks`, {
    auth: world.member,
    body: { name: 'Bench dashboard' },
  });
  if (created.status !== 200) throw new Error(`workspace bench: ${JSON.stringify(created.body)}`);
  const member = { authorization: `Bearer ${world.member.bearer}` };
  // A search that walks 100,000 items takes seconds: few connections and long rounds.
  const slow = { connections: 4, duration: ctx.quick ? 3 : 6 };
  const page = (deploymentId) =>
    `/api/v1/deployments/${deploymentId}/workspace?first=50&orderByField=updated_at`;

  return [
    {
      name: 'workspace list first page, first=50 updated_at, 10,000 items',
      method: 'GET',
      path: page(small),
      headers: member,
    },
    {
      name: FIRST_PAGE_LARGE,
      method: 'GET',
      path: page(large),
      headers: member,
    },
    {
      // The search's reference: the same first page at the search's connections and rounds.
      name: FIRST_PAGE_LARGE_4,
      method: 'GET',
      path: page(large),
      headers: member,
      ...slow,
    },
    {
      // Goal: p99 within 2x of the first page's over the same 100,000 items.
      name: 'workspace list search=item 9999 (11 matches), 100,000 items (4 conn.)',
      method: 'GET',
      path: `/api/v1/deployments/${large}/workspace?first=50&search=${encodeURIComponent('item 9999')}`,
      headers: member,
      compare: { with: FIRST_PAGE_LARGE_4, metric: 'p99', goal: 2 },
      ...slow,
    },
    {
      name: 'PUT 50-widget dashboard draft',
      method: 'PUT',
      path: `/api/v1/deployments/${small}/workbooks/${created.body.id}/dashboard`,
      headers: { ...member, 'content-type': 'application/json' },
      body: JSON.stringify({ dashboardDraft: dashboard(50) }),
    },
  ];
}
