import type { Context } from 'hono';
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
import { deploymentIdOf } from './deployments.routes';

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
const tags = ['Data Model'];
const readRoute = routeGroup({ auth: 'user', scope: 'account', tags, errors: [403, 404], docs });
const writeRoute = readRoute.with({ permission: 'SchemaUpdate' });
const uploadReadRoute = readRoute.with({ tags: ['Data Model Uploads'] });
const uploadRoute = uploadReadRoute.with({ permission: 'SchemaUpdate' });

const FILES = '/deployments/:id/data-model/files';
const UPLOAD = '/deployments/:id/data-model/upload';

/** A deployment's data-model files, validation and uploads: reading needs any user, writing SchemaUpdate. Mounted at /build/api/v1. */
export const dataModelRoutes = routes(
  readRoute.get(FILES, 'listFiles', sourceTreeSchema, {
    input: { params: idParams, query: listFilesQuery },
    handler: async (_c, { params, query }, scope) => listFiles(scope, deploymentIdOf(scope, params), query),
  }),
  writeRoute.put(FILES, 'updateFiles', writeResponseSchema, {
    input: { params: idParams, body: updateFilesBody },
    errors: [413],
    handler: async (_c, { params, body }, scope) => updateFiles(scope, deploymentIdOf(scope, params), body),
  }),
  writeRoute.delete(FILES, 'removeFiles', writeResponseSchema, {
    input: { params: idParams, body: removeFilesBody },
    handler: async (_c, { params, body }, scope) => removeFiles(scope, deploymentIdOf(scope, params), body),
  }),
  writeRoute.post(`${FILES}/rename`, 'renameFiles', writeResponseSchema, {
    input: { params: idParams, body: renameFilesBody },
    errors: [409],
    handler: async (_c, { params, body }, scope) => renameFiles(scope, deploymentIdOf(scope, params), body),
  }),
  readRoute.get('/deployments/:id/data-model/validate', 'validateDataModel', validationSchema, {
    input: { params: idParams, query: validateQuery },
    handler: async (_c, { params, query }, scope) =>
      validateDataModel(scope, deploymentIdOf(scope, params), query),
  }),
  uploadReadRoute.get('/deployments/:id/data-model/file-hashes', 'fileHashes', fileHashesSchema, {
    input: { params: idParams, query: uploadQuery },
    handler: async (_c, { params, query }, scope) =>
      getFileHashes(scope, deploymentIdOf(scope, params), query.branchName),
  }),
  uploadRoute.post(`${UPLOAD}/start`, 'startUpload', startUploadSchema, {
    input: { params: idParams, query: uploadQuery },
    errors: [429],
    handler: async (_c, { params, query }, scope) =>
      startUpload(scope, deploymentIdOf(scope, params), query.branchName),
  }),
  uploadRoute.post(`${UPLOAD}/file`, 'uploadFile', uploadedFileSchema, {
    input: { params: idParams, query: uploadQuery },
    errors: [413, 415],
    handler: async (c, { params, query }, scope) => {
      const deploymentId = deploymentIdOf(scope, params);
      return uploadFile(scope, deploymentId, await multipartFile(c), query.branchName);
    },
  }),
  uploadRoute.post(`${UPLOAD}/finish`, 'finishUpload', finishUploadSchema, {
    input: { params: idParams, query: uploadQuery, body: finishUploadBody },
    errors: [413],
    handler: async (_c, { params, query, body }, scope) =>
      finishUpload(scope, deploymentIdOf(scope, params), body, query.branchName),
  }),
);
