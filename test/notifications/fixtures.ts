import { env } from 'cloudflare:test';

let counter = 0;

/**
 * A published dashboard in `deploymentId`: a workbook and its first published version, written
 * straight to D1 (the publishing endpoint belongs to the dashboards domain).
 */
export async function seedDashboard(
  deploymentId: number,
  title = 'Weekly sales',
): Promise<{ id: number; publicId: string; workbookId: number }> {
  counter += 1;
  const now = '2026-01-01T00:00:00.000Z';
  const publicId = `pub${counter}${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const config = {
    title,
    widgets: [{ id: 'w1', type: 'TEXT', position: { x: 0, y: 0, w: 6, h: 2 }, config: { text: 'Hello' } }],
  };
  const [workbook] = (
    await env.DB.prepare(
      `INSERT INTO workspace_items (deployment_id, type, name, name_key, created_at, updated_at)
       VALUES (?, 'WORKBOOK', ?, lower(?), ?, ?) RETURNING id`,
    )
      .bind(deploymentId, title, title, now, now)
      .all<{ id: number }>()
  ).results;
  const workbookId = (workbook as { id: number }).id;
  const [dashboard] = (
    await env.DB.prepare(
      `INSERT INTO published_dashboards (deployment_id, workbook_id, public_id, title, version_number, created_at, updated_at)
       VALUES (?, ?, ?, ?, 1, ?, ?) RETURNING id`,
    )
      .bind(deploymentId, workbookId, publicId, title, now, now)
      .all<{ id: number }>()
  ).results;
  const id = (dashboard as { id: number }).id;
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO dashboard_versions (published_dashboard_id, version_number, config, created_at) VALUES (?, 1, ?, ?)`,
    ).bind(id, JSON.stringify(config), now),
    env.DB.prepare(
      `UPDATE published_dashboards SET current_version_id = (SELECT max(id) FROM dashboard_versions WHERE published_dashboard_id = ?) WHERE id = ?`,
    ).bind(id, id),
  ]);
  return { id, publicId, workbookId };
}
