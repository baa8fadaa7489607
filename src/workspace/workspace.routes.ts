import { authenticate } from '../auth/auth.middleware';
import { nowOf, scopeOf } from '../auth/deployment-scope';
import { doc } from '../core/openapi';
import { pageSchema } from '../core/pagination';
import { createRouter } from '../core/router';
import { validate } from '../core/validation';
import { deploymentParams, listQuery, moveBody, workspaceItemSchema } from './workspace.schemas';
import { listWorkspace, moveItem, presentItem } from './workspace.service';

const tags = ['Workspace'];
const user = authenticate(['Bearer']);

/** E7 and E2. Mounted at /api/v1/deployments/:deploymentId/workspace. */
export const workspaceRoutes = createRouter()
  .get(
    '/',
    doc({
      summary: 'List workspace items (E7)',
      description:
        'Folders first, then workbooks and reports, each group in the requested order (ties by id). ' +
        '`folderId` lists that folder’s direct children (omitted: the root level); `search` matches a ' +
        'case-insensitive substring of the name across all folders (with `folderId`: among its children). ' +
        'Keyset pagination: pass `pageInfo.endCursor` as `after` with the same filters and order.',
      tags,
      auth: 'bearer',
      operationId: 'listWorkspaceItems',
      responses: { 200: pageSchema(workspaceItemSchema) },
      errors: [404],
    }),
    user,
    validate('param', deploymentParams),
    validate('query', listQuery),
    async (c) => {
      const scope = scopeOf(c, c.req.valid('param').deploymentId);
      return c.json(await listWorkspace(c.get('db'), scope, c.req.valid('query')));
    },
  )
  .post(
    '/move',
    doc({
      summary: 'Move a folder, workbook or report into a folder or the root (E2)',
      description:
        '`folderId` null or omitted moves to the root. `type`, when sent, must match the item. Moving a ' +
        'folder into itself or a descendant, or deeper than 10 levels, is a 400.',
      tags,
      auth: 'bearer',
      operationId: 'moveWorkspaceItem',
      responses: { 200: workspaceItemSchema },
      errors: [404],
    }),
    user,
    validate('param', deploymentParams),
    validate('json', moveBody),
    async (c) => {
      const scope = scopeOf(c, c.req.valid('param').deploymentId);
      return c.json(presentItem(await moveItem(c.get('db'), scope, c.req.valid('json'), nowOf(c))));
    },
  );
