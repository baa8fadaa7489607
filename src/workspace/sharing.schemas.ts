import * as v from 'valibot';
import { pageQueryEntries, pageSchema } from '../core/pagination';
import { idString, obj } from '../core/validation';
import { sessionQuery } from '../embedding/embed-sessions.schemas';
import { tenantName } from '../embedding/embedding.schemas';
import type { AccessSource } from './sharing.repository';
import { listQueryEntries, workspaceItemSchema } from './workspace.schemas';

/** Cube's sharedWorkspaceObjects query: the workspace list's, plus the embed session as `?session=`. */
export const sharedWorkspaceQuery = obj({ ...listQueryEntries, ...sessionQuery.entries });

export const ACCESS_SOURCES = [
  'tenant',
  'allEmbedUsers',
  'folder',
] as const satisfies readonly AccessSource[];

/** Cube's listEmbedTenantWorkbooks query (EmbedTenantWorkbooksListQueryAccessSource). */
export const tenantWorkbooksQuery = obj({
  ...pageQueryEntries,
  accessSource: v.optional(v.picklist(ACCESS_SOURCES)),
});

export const tenantWorkbooksParams = v.object({ deploymentId: idString, embedTenantName: tenantName });

/** Cube's WorkspaceConnectionResponse and EmbedTenantWorkbooksListResponse: `{items, pageInfo}` of workbooks. */
export const sharedItemsSchema = pageSchema(workspaceItemSchema);
