import { ApiError, badRequest, conflict, notFound } from '../core/errors';
import type { DeploymentScope } from '../core/scope';
import { MAX_TENANT_SHARES } from './dashboards.limits';
import * as repo from './embed-access.repository';
import type { EmbedAccess, UpdateEmbedAccessInput } from './embed-access.schemas';

/**
 * Cube's EmbedAccessResponse: the published dashboard's two flags and the tenants it is shared
 * with. Each tenant's `groupId` is the tenant's id (the tenant is its own sharing group); the
 * all-embed-users share has no group of its own (null).
 */
function present(audience: repo.EmbedAudience): EmbedAccess {
  return {
    allowEmbed: audience.allowEmbed,
    allEmbedUsers: {
      enabled: audience.allEmbedUsers,
      action: audience.allEmbedUsers ? 'read' : 'none',
      groupId: null,
    },
    tenants: audience.tenants.map((t) => ({ embedTenantName: t.name, groupId: t.id, action: 'read' })),
  };
}

export async function getEmbedAccess(scope: DeploymentScope, workbookId: number) {
  const audience = await repo.findEmbedAudience(scope, workbookId);
  if (!audience) throw notFound('Workbook');
  return present(audience);
}

/**
 * Cube's updateEmbedAccess: one target, `embedTenantName` (one embed tenant) or
 * `allEmbedUsers: true` (every embed user), with `action` shares (read) or unshares (none) the
 * published dashboard; `allowEmbed` sets the embedding flag, alone or beside the target.
 */
export async function updateEmbedAccess(
  scope: DeploymentScope,
  workbookId: number,
  input: UpdateEmbedAccessInput,
) {
  const targetsAll = input.allEmbedUsers === true;
  const tenantName = input.embedTenantName ?? null;
  if (targetsAll && tenantName !== null) {
    throw new ApiError('VALIDATION_FAILED', 'Send one target: embedTenantName or allEmbedUsers, not both', [
      { path: 'embedTenantName', message: 'Not with allEmbedUsers' },
    ]);
  }
  const targeted = targetsAll || tenantName !== null;
  if (targeted !== (input.action != null)) {
    throw new ApiError(
      'VALIDATION_FAILED',
      'Send `action` together with `allEmbedUsers: true` or `embedTenantName`',
      [{ path: targeted ? 'action' : 'allEmbedUsers', message: 'Required with the other' }],
    );
  }
  if (!targeted && input.allowEmbed == null) {
    throw new ApiError(
      'VALIDATION_FAILED',
      'Nothing to change: send allowEmbed, or allEmbedUsers or embedTenantName with action',
      [{ path: '(body)', message: 'No change' }],
    );
  }
  const action = input.action ?? 'none';
  // One batch: every write is guarded by the checks below, read back in the same batch, so a
  // refused request wrote nothing.
  const { audience, tenantId } = await repo.updateEmbedAudience(scope, workbookId, {
    flags: {
      ...(input.allowEmbed != null ? { allowEmbed: input.allowEmbed } : {}),
      ...(targetsAll ? { allEmbedUsers: action === 'read' } : {}),
    },
    ...(tenantName !== null ? { tenant: { name: tenantName, action } } : {}),
  });
  if (!audience) throw notFound('Workbook');
  if (tenantName !== null && tenantId === null) throw notFound('Embed tenant');
  if (!audience.published) {
    throw badRequest('The workbook has no published dashboard (publish it first)', [
      {
        path: input.allowEmbed != null ? 'allowEmbed' : targetsAll ? 'allEmbedUsers' : 'embedTenantName',
        message: 'Not published',
      },
    ]);
  }
  if (tenantName !== null && action === 'read' && !audience.tenants.some((t) => t.id === tenantId)) {
    throw conflict(
      `A workbook is shared with at most ${MAX_TENANT_SHARES} embed tenants: unshare one, or share with all embed users`,
    );
  }
  return present(audience);
}
