import { authenticate } from '../auth/auth.middleware';
import { nowOf, scopeOf } from '../auth/deployment-scope';
import { doc } from '../core/openapi';
import { createRouter } from '../core/router';
import { deletedSchema, validate } from '../core/validation';
import {
  createWorkbookBody,
  deploymentParams,
  itemParams,
  updateWorkbookBody,
  workspaceItemSchema,
} from './workspace.schemas';
import {
  createWorkbook,
  deleteItem,
  presentItem,
  setFavorite,
  updateWorkbook,
  viewItem,
} from './workspace.service';

const tags = ['Workspace: workbooks'];
const user = authenticate(['Bearer']);

/** Workbooks and favourites (E3). Mounted at /api/v1/deployments/:deploymentId/workbooks. */
export const workbooksRoutes = createRouter()
  .post(
    '/',
    doc({
      summary: 'Create a workbook',
      description:
        '`name` defaults to "Untitled workbook"; without `slug` one is derived from the name plus a random suffix.',
      tags,
      auth: 'bearer',
      responses: { 201: workspaceItemSchema },
      errors: [404, 409],
    }),
    user,
    validate('param', deploymentParams),
    validate('json', createWorkbookBody),
    async (c) => {
      const scope = scopeOf(c, c.req.valid('param').deploymentId);
      const rec = await createWorkbook(c.get('db'), scope, c.req.valid('json'), nowOf(c));
      return c.json(presentItem(rec), 201);
    },
  )
  .get(
    '/:id',
    doc({
      summary: 'Get a workbook (records the caller’s view)',
      tags,
      auth: 'bearer',
      responses: { 200: workspaceItemSchema },
      errors: [404],
    }),
    user,
    validate('param', itemParams),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      const rec = await viewItem(c.get('db'), scopeOf(c, deploymentId), id, 'WORKBOOK', nowOf(c));
      return c.json(presentItem(rec));
    },
  )
  .put(
    '/:id',
    doc({
      summary: 'Update a workbook (E3)',
      description:
        'Send any of `name`, `folderId` (null: the root), `meta` (replaces the stored object) and `slug`. ' +
        'A slug another workbook of the deployment holds is a 409 unless `slugTakeover` is true: then that ' +
        'workbook gets a new slug (its old one plus a random suffix) in the same transaction.',
      tags,
      auth: 'bearer',
      operationId: 'updateWorkbook',
      responses: { 200: workspaceItemSchema },
      errors: [404, 409],
    }),
    user,
    validate('param', itemParams),
    validate('json', updateWorkbookBody),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      const rec = await updateWorkbook(
        c.get('db'),
        scopeOf(c, deploymentId),
        id,
        c.req.valid('json'),
        nowOf(c),
      );
      return c.json(presentItem(rec));
    },
  )
  .delete(
    '/:id',
    doc({
      summary: 'Delete a workbook',
      description:
        'Also deletes its draft, its published dashboard and every version; the publicId then answers 404 everywhere. Its reports stay, detached (workbookId null).',
      tags,
      auth: 'bearer',
      responses: { 200: deletedSchema },
      errors: [404],
    }),
    user,
    validate('param', itemParams),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      return c.json(await deleteItem(c.get('db'), scopeOf(c, deploymentId), id, 'WORKBOOK'));
    },
  )
  .put(
    '/:id/favorite',
    doc({
      summary: 'Mark a workbook as a favourite of the caller',
      description: 'Idempotent. Answers the workbook with `isFavorite: true`.',
      tags,
      auth: 'bearer',
      responses: { 200: workspaceItemSchema },
      errors: [404],
    }),
    user,
    validate('param', itemParams),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      return c.json(
        presentItem(await setFavorite(c.get('db'), scopeOf(c, deploymentId), id, true, nowOf(c))),
      );
    },
  )
  .delete(
    '/:id/favorite',
    doc({
      summary: 'Remove a workbook from the caller’s favourites',
      description: 'Idempotent. Answers the workbook with `isFavorite: false`.',
      tags,
      auth: 'bearer',
      responses: { 200: workspaceItemSchema },
      errors: [404],
    }),
    user,
    validate('param', itemParams),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      return c.json(
        presentItem(await setFavorite(c.get('db'), scopeOf(c, deploymentId), id, false, nowOf(c))),
      );
    },
  );
