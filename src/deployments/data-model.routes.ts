import type { Context } from 'hono';
import { accountPrincipal, requireDeploymentScope } from '../auth/auth.middleware';
import { nowOf } from '../auth/deployment-scope';
import type { AppEnv } from '../core/env';
import { ApiError, badRequest } from '../core/errors';
import { idParams } from '../core/validation';
import { apiDocs, routeGroup, routes } from '../http/route';
import markdown from './data-model.routes.md';
import {
  fileHashesSchema,
  finishUploadBody,
  finishUploadSchema,
  listFilesQuery,
  MAX_FILE_BYTES,
  MAX_OPEN_UPLOADS,
  MAX_PATH_LENGTH,
  MAX_PROJECT_BYTES,
  MAX_PROJECT_FILES,
  removeFilesBody,
  renameFilesBody,
  sourceTreeSchema,
  startUploadSchema,
  updateFilesBody,
  uploadedFileSchema,
  uploadQuery,
  validateQuery,
  validationSchema,
  writeResponseSchema,
} from './data-model.schemas';
import {
  type DataModelDeps,
  finishUpload,
  getFileHashes,
  listFiles,
  removeFiles,
  renameFiles,
  startUpload,
  type UploadedFile,
  updateFiles,
  uploadFile,
  validateDataModel,
} from './data-model.service';

/** The caller's account and the path's deployment `id`; a key scoped to other deployments gets 403 KEY_SCOPE. */
function theDeployment(c: Context<AppEnv>, params: { id: number }) {
  const principal = accountPrincipal(c);
  requireDeploymentScope(principal, params.id);
  return [principal.account.id, params.id] as const;
}

const depsOf = (c: Context<AppEnv>): DataModelDeps => ({
  db: c.get('db'),
  queue: c.env.BUILDS_QUEUE,
  now: nowOf(c),
});

/** `upload/file`'s multipart fields: `transaction`, `fileName` and `file` (a file part or a text field). */
async function multipartFile(c: Context<AppEnv>): Promise<UploadedFile> {
  const type = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data\b/i.test(type)) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', 'upload/file takes multipart/form-data');
  }
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch {
    throw badRequest('Malformed multipart/form-data body');
  }
  const text = (name: string): string => {
    const value = form.get(name);
    if (typeof value !== 'string' || value === '') {
      throw badRequest(`Missing form field ${name}`, [{ path: name, message: 'Required' }]);
    }
    return value;
  };
  const file = form.get('file');
  if (file === null) throw badRequest('Missing form field file', [{ path: 'file', message: 'Required' }]);
  const content =
    typeof file === 'string' ? new TextEncoder().encode(file) : new Uint8Array(await file.arrayBuffer());
  return { transaction: text('transaction'), fileName: text('fileName'), content };
}

const docs = apiDocs(markdown, {
  MAX_PROJECT_FILES,
  MAX_FILE_KIB: MAX_FILE_BYTES / 1024,
  MAX_PROJECT_MIB: MAX_PROJECT_BYTES / 1024 / 1024,
  MAX_PATH_LENGTH,
  MAX_OPEN_UPLOADS,
});
const readRoute = routeGroup({ auth: 'user', tags: ['Data Model'], errors: [403, 404], docs });
const writeRoute = routeGroup({ auth: 'admin', tags: ['Data Model'], errors: [403, 404], docs });
const uploadReadRoute = routeGroup({ auth: 'user', tags: ['Data Model Uploads'], errors: [403, 404], docs });
const uploadRoute = routeGroup({ auth: 'admin', tags: ['Data Model Uploads'], errors: [403, 404], docs });

const FILES = '/deployments/:id/data-model/files';
const UPLOAD = '/deployments/:id/data-model/upload';

/** A deployment's data-model files, validation and uploads: reading needs any user, writing an admin. Mounted at /build/api/v1. */
export const dataModelRoutes = routes(
  readRoute.get(FILES, 'listFiles', sourceTreeSchema, {
    input: { params: idParams, query: listFilesQuery },
    handler: async (c, { params, query }) => listFiles(c.get('db'), ...theDeployment(c, params), query),
  }),
  writeRoute.put(FILES, 'updateFiles', writeResponseSchema, {
    input: { params: idParams, body: updateFilesBody },
    errors: [413],
    handler: async (c, { params, body }) => updateFiles(depsOf(c), ...theDeployment(c, params), body),
  }),
  writeRoute.delete(FILES, 'removeFiles', writeResponseSchema, {
    input: { params: idParams, body: removeFilesBody },
    handler: async (c, { params, body }) => removeFiles(depsOf(c), ...theDeployment(c, params), body),
  }),
  writeRoute.post(`${FILES}/rename`, 'renameFiles', writeResponseSchema, {
    input: { params: idParams, body: renameFilesBody },
    errors: [409],
    handler: async (c, { params, body }) => renameFiles(depsOf(c), ...theDeployment(c, params), body),
  }),
  readRoute.get('/deployments/:id/data-model/validate', 'validateDataModel', validationSchema, {
    input: { params: idParams, query: validateQuery },
    handler: async (c, { params, query }) =>
      validateDataModel(c.get('db'), ...theDeployment(c, params), query),
  }),
  uploadReadRoute.get('/deployments/:id/data-model/file-hashes', 'fileHashes', fileHashesSchema, {
    input: { params: idParams, query: uploadQuery },
    handler: async (c, { params, query }) =>
      getFileHashes(c.get('db'), ...theDeployment(c, params), query.branchName),
  }),
  uploadRoute.post(`${UPLOAD}/start`, 'startUpload', startUploadSchema, {
    input: { params: idParams, query: uploadQuery },
    errors: [429],
    handler: async (c, { params, query }) =>
      startUpload(depsOf(c), ...theDeployment(c, params), query.branchName),
  }),
  uploadRoute.post(`${UPLOAD}/file`, 'uploadFile', uploadedFileSchema, {
    input: { params: idParams, query: uploadQuery },
    errors: [413, 415],
    handler: async (c, { params, query }) => {
      const deployment = theDeployment(c, params);
      return uploadFile(depsOf(c), ...deployment, await multipartFile(c), query.branchName);
    },
  }),
  uploadRoute.post(`${UPLOAD}/finish`, 'finishUpload', finishUploadSchema, {
    input: { params: idParams, query: uploadQuery, body: finishUploadBody },
    errors: [413],
    handler: async (c, { params, query, body }) =>
      finishUpload(depsOf(c), ...theDeployment(c, params), body, query.branchName),
  }),
);
