import { ApiError, badRequest, notFound } from '../core/errors';
import type { DeploymentScope } from '../core/scope';
import * as repo from './embed-access.repository';
import type { EmbedAccess, UpdateEmbedAccessInput } from './embed-access.schemas';

/** Cube's EmbedAccessResponse from edgeboard's two flags: there are no per-tenant shares. */
function present(flags: repo.EmbedFlags): EmbedAccess {
  return {
    allowEmbed: flags.allowEmbed,
    allEmbedUsers: {
      enabled: flags.allEmbedUsers,
      action: flags.allEmbedUsers ? 'read' : 'none',
      groupId: null,
    },
    tenants: [],
  };
}

export async function getEmbedAccess(scope: DeploymentScope, workbookId: number) {
  const flags = await repo.findEmbedFlags(scope, workbookId);
  if (!flags) throw notFound('Workbook');
  return present(flags);
}

/**
 * Cube's updateEmbedAccess: `allEmbedUsers: true` with `action` shares (read) or unshares (none)
 * the dashboard with every embed user; `allowEmbed` sets the embedding flag. A per-tenant target
 * is refused: edgeboard shares with all embed users or none.
 */
export async function updateEmbedAccess(
  scope: DeploymentScope,
  workbookId: number,
  input: UpdateEmbedAccessInput,
) {
  if (input.embedTenantName != null) {
    throw new ApiError(
      'VALIDATION_FAILED',
      'Per-tenant embed access is not supported: share with all embed users',
      [{ path: 'embedTenantName', message: 'Not supported' }],
    );
  }
  const targetsAll = input.allEmbedUsers === true;
  if (targetsAll !== (input.action != null)) {
    throw new ApiError('VALIDATION_FAILED', 'Send `action` together with `allEmbedUsers: true`', [
      { path: targetsAll ? 'action' : 'allEmbedUsers', message: 'Required with the other' },
    ]);
  }
  if (!targetsAll && input.allowEmbed == null) {
    throw new ApiError(
      'VALIDATION_FAILED',
      'Nothing to change: send allowEmbed, or allEmbedUsers with action',
      [{ path: '(body)', message: 'No change' }],
    );
  }
  // One batch: the UPDATE touches only a published dashboard, and the read after it tells
  // whether the workbook exists and is published (nothing was written when it is not).
  const updated = await repo.updateEmbedFlags(scope, workbookId, {
    ...(input.allowEmbed != null ? { allowEmbed: input.allowEmbed } : {}),
    ...(targetsAll ? { allEmbedUsers: input.action === 'read' } : {}),
  });
  if (!updated) throw notFound('Workbook');
  if (!updated.published) {
    throw badRequest('The workbook has no published dashboard (publish it first)', [
      { path: 'allowEmbed', message: 'Not published' },
    ]);
  }
  return present(updated);
}
