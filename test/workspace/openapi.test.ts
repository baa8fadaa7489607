import { beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARDS_DECISIONS } from '../../src/dashboards/dashboards.decisions';
import { WORKSPACE_DECISIONS } from '../../src/workspace/workspace.decisions';
import { api } from '../helpers/http';

let document: any;

beforeAll(async () => {
  const res = await api('GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  document = res.body;
});

const P = '/api/v1/deployments/{deploymentId}';
const ROUTES: [string, string, string?][] = [
  // Cube's operation ids (formerly listWorkspaceItems and moveWorkspaceItem).
  ['get', `${P}/workspace`, 'workspaceObjects'],
  ['post', `${P}/workspace/move`, 'moveWorkspaceObject'],
  ['post', `${P}/folders`],
  ['get', `${P}/folders/{id}`],
  ['put', `${P}/folders/{id}`, 'updateFolder'],
  ['delete', `${P}/folders/{id}`, 'deleteFolder'],
  ['post', `${P}/workbooks`],
  ['get', `${P}/workbooks/{id}`],
  ['put', `${P}/workbooks/{id}`, 'updateWorkbook'],
  ['delete', `${P}/workbooks/{id}`],
  ['put', `${P}/workbooks/{id}/favorite`],
  ['delete', `${P}/workbooks/{id}/favorite`],
  ['get', `${P}/workbooks/{id}/dashboard`],
  ['put', `${P}/workbooks/{id}/dashboard`, 'updateWorkbookDashboard'],
  ['post', `${P}/workbooks/{id}/publish`, 'publishDashboard'],
  ['get', `${P}/workbooks/{id}/dashboard/versions`],
  ['get', `${P}/workbooks/{id}/dashboard/versions/{versionNumber}`],
  ['post', `${P}/reports`],
  ['get', `${P}/reports/{id}`],
  ['put', `${P}/reports/{id}`],
  ['delete', `${P}/reports/{id}`],
];

describe('the OpenAPI document for the workspace and dashboards', () => {
  it.each(ROUTES)(
    'documents %s %s with a summary, Bearer security, a 404 and its operation id',
    (method, path, operationId) => {
      const op = document.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.summary).toEqual(expect.any(String));
      // Routes declared in a route group document that API keys work there too.
      expect(op.security).toContainEqual({ bearerAuth: [] });
      expect(op.responses['401'].$ref).toBe('#/components/responses/Error401');
      expect(op.responses['404'].$ref).toBe('#/components/responses/Error404');
      expect(op.parameters.map((p: { name: string }) => p.name)).toContain('deploymentId');
      if (operationId) expect(op.operationId).toBe(operationId);
    },
  );

  it('documents every query parameter of the workspace list with its values', () => {
    const params = document.paths[`${P}/workspace`].get.parameters;
    const byName = Object.fromEntries(params.map((p: { name: string }) => [p.name, p]));
    expect(Object.keys(byName).sort()).toEqual(
      [
        'after',
        'deploymentId',
        'first',
        'folderId',
        'orderByDirection',
        'orderByField',
        'search',
        'types',
      ].sort(),
    );
    expect(byName.orderByField.schema.enum).toEqual([
      'updated_at',
      'created_at',
      'name',
      'viewer_last_viewed_at',
    ]);
    expect(byName.orderByDirection.schema.enum).toEqual(['ASC', 'DESC']);
    expect(JSON.stringify(byName.types.schema)).toContain('"FOLDER","WORKBOOK","REPORT"');
  });

  it('documents the DashboardConfigInput of the draft and the conflicts of the workbook update and the folder delete', () => {
    const body =
      document.paths[`${P}/workbooks/{id}/dashboard`].put.requestBody.content['application/json'].schema;
    const config = JSON.stringify(body);
    expect(config).toContain('"CLASSIC","APP"');
    expect(config).toContain('"CHART","TEXT","FILTER","AI","TABS_CONTAINER","TIME_GRAIN"');
    // Cube's DashboardWidgetDraftInput: `id` is optional (a widget without one gets one on save).
    expect(config).toContain('"required":["type","position"]');
    expect(config).toContain('"maxLength":255');
    expect(document.paths[`${P}/workbooks/{id}`].put.responses['409']).toBeDefined();
    expect(document.paths[`${P}/folders/{id}`].delete.responses['409']).toBeDefined();
  });

  it('documents every limit of the stored JSON, the widget cap and the theme grammar', () => {
    const draft = JSON.stringify(
      document.paths[`${P}/workbooks/{id}/dashboard`].put.requestBody.content['application/json'].schema,
    );
    for (const [depth, bytes] of [
      [24, 512 * 1024],
      [12, 32 * 1024],
      [6, 8 * 1024],
    ]) {
      expect(draft).toContain(`"x-max-depth":${depth},"x-max-bytes":${bytes}`);
    }
    expect(draft).toContain('"maxItems":200');
    expect(draft).toContain('"maxProperties":100');
    expect(draft).toContain('comma-separated names of letters, digits, spaces and hyphens');
    const workbook = JSON.stringify(
      document.paths[`${P}/workbooks`].post.requestBody.content['application/json'],
    );
    expect(workbook).toContain(`"x-max-depth":16,"x-max-bytes":${64 * 1024}`);
    const report = JSON.stringify(
      document.paths[`${P}/reports`].post.requestBody.content['application/json'],
    );
    expect(report).toContain('At most 200000 bytes (UTF-8).');
    expect(report).toContain(`"x-max-depth":8,"x-max-bytes":${32 * 1024}`);
    const versions = document.paths[`${P}/workbooks/{id}/dashboard/versions`].get;
    expect(versions.description).toContain('Summaries only');
    expect(document.paths[`${P}/workbooks/{id}/publish`].post.responses['429']).toBeDefined();
  });

  it('records the workspace and dashboard decisions', () => {
    for (const decision of [...WORKSPACE_DECISIONS, ...DASHBOARDS_DECISIONS]) {
      expect(document.info.description).toContain(decision);
    }
  });
});
