import type { DeploymentScope } from '../auth/deployment-scope';
import type { Db } from '../core/env';
import { notFound } from '../core/errors';
import { type RenderedDashboard, renderDashboard } from '../render/render';
import type { RenderInput } from '../render/render.types';
import { findRenderSource } from './render.repository';
import type { RenderQuery } from './render.schemas';

/**
 * A workbook's dashboard as an image: the published version (what notifications send, with its
 * frozen report snapshots) or the draft (with the workbook's reports as they are now).
 */
export async function renderWorkbookDashboard(
  db: Db,
  scope: DeploymentScope,
  workbookId: number,
  query: RenderQuery,
): Promise<RenderedDashboard & { filename: string }> {
  const source = await findRenderSource(db, scope, workbookId, query.version);
  if (!source.deploymentOk) throw notFound('Deployment');
  if (!source.workbookFound) throw notFound('Workbook');
  let input: RenderInput;
  if (query.version === 'draft') {
    if (!source.draft) throw notFound('Dashboard draft (the workbook has none)');
    input = { config: source.draft, reportSnapshots: source.reports };
  } else {
    if (!source.published) throw notFound('Published dashboard (the workbook was never published)');
    const p = source.published;
    input = {
      config: p.config,
      reportSnapshots: p.reportSnapshots,
      title: p.title,
      description: p.description,
    };
  }
  const rendered = await renderDashboard(input, query.format, { width: query.width });
  return { ...rendered, filename: `dashboard-${workbookId}-${query.version}.${query.format}` };
}
