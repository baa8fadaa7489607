import { authenticate } from '../auth/auth.middleware';
import { nowOf, scopeOf } from '../auth/deployment-scope';
import { doc } from '../core/openapi';
import { createRouter } from '../core/router';
import { deletedSchema, validate } from '../core/validation';
import {
  createFolderBody,
  deploymentParams,
  folderSchema,
  itemParams,
  updateFolderBody,
} from './workspace.schemas';
import { createFolder, deleteFolder, presentFolder, updateFolder, viewItem } from './workspace.service';

const tags = ['Workspace: folders'];
const user = authenticate(['Bearer']);

/** Folders, E5 and E6. Mounted at /api/v1/deployments/:deploymentId/folders. */
export const foldersRoutes = createRouter()
  .post(
    '/',
    doc({
      summary: 'Create a folder',
      description:
        '`parentId` null or omitted: the root. Without `position` the folder goes after its siblings.',
      tags,
      auth: 'bearer',
      responses: { 201: folderSchema },
      errors: [404],
    }),
    user,
    validate('param', deploymentParams),
    validate('json', createFolderBody),
    async (c) => {
      const scope = scopeOf(c, c.req.valid('param').deploymentId);
      const rec = await createFolder(c.get('db'), scope, c.req.valid('json'), nowOf(c));
      return c.json(presentFolder(rec), 201);
    },
  )
  .get(
    '/:id',
    doc({
      summary: 'Get a folder (records the caller’s view)',
      tags,
      auth: 'bearer',
      responses: { 200: folderSchema },
      errors: [404],
    }),
    user,
    validate('param', itemParams),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      const rec = await viewItem(c.get('db'), scopeOf(c, deploymentId), id, 'FOLDER', nowOf(c));
      return c.json(presentFolder(rec));
    },
  )
  .put(
    '/:id',
    doc({
      summary: 'Rename or reposition a folder (E5)',
      description: 'Send `name` (1–255 characters), `position` (≥ 0) or both.',
      tags,
      auth: 'bearer',
      operationId: 'updateFolder',
      responses: { 200: folderSchema },
      errors: [404],
    }),
    user,
    validate('param', itemParams),
    validate('json', updateFolderBody),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      const rec = await updateFolder(
        c.get('db'),
        scopeOf(c, deploymentId),
        id,
        c.req.valid('json'),
        nowOf(c),
      );
      return c.json(presentFolder(rec));
    },
  )
  .delete(
    '/:id',
    doc({
      summary: 'Delete a folder (E6)',
      description:
        'A folder holding sub-folders is a 409. Its workbooks and reports move to its parent (the root for a root-level folder).',
      tags,
      auth: 'bearer',
      operationId: 'deleteFolder',
      responses: { 200: deletedSchema },
      errors: [404, 409],
    }),
    user,
    validate('param', itemParams),
    async (c) => {
      const { deploymentId, id } = c.req.valid('param');
      return c.json(await deleteFolder(c.get('db'), scopeOf(c, deploymentId), id));
    },
  );
