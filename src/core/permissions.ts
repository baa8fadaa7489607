/**
 * The permissions custom roles grant, named by the routes they govern (Cube's action names where
 * Cube has one for the same routes). A route group or route declares the permission it needs
 * (`permission` in src/http/route.ts) and the auth layer checks it against the caller's grants,
 * which are read with the credential (src/auth/auth.repository.ts), so the check costs no query.
 *
 * `deployment` permissions may be granted on every deployment or on some; `account` ones only
 * account-wide (their routes belong to no deployment).
 */
export const PERMISSIONS = {
  WorkspaceEdit: {
    level: 'deployment',
    governs:
      'Creating, changing, moving and deleting folders, workbooks and reports (single and bulk), duplicating workbooks, connecting and refreshing reports, and saving a dashboard draft.',
  },
  DashboardsPublish: { level: 'deployment', governs: 'Publishing a workbook’s dashboard.' },
  NotificationsManage: {
    level: 'deployment',
    governs: 'Every notification route: schedules, recipients, runs and deliveries, run now.',
  },
  DeploymentsManage: {
    level: 'deployment',
    governs:
      'Creating (account-wide grant only), changing and deleting deployments, their creation step, and issuing a deployment’s Cube API token.',
  },
  SchemaUpdate: {
    level: 'deployment',
    governs: 'Writing data-model files: update, remove, rename, and uploads (start, file, finish).',
  },
  SecretsManage: { level: 'deployment', governs: 'Setting a deployment’s env variables.' },
  DataStoreManage: {
    level: 'deployment',
    governs: 'Importing CSV into the embedded data store and dropping its tables.',
  },
  EmbeddingManage: {
    level: 'account',
    governs:
      'Revoking embed sessions, a dashboard’s embedding switches and embed access, groups, user attributes, embed tenants and their users.',
  },
  UsersManage: {
    level: 'account',
    governs:
      'Creating, listing, reading, changing, deactivating, reactivating and deleting users who are not admins (single and bulk).',
  },
} as const satisfies Record<string, { level: 'account' | 'deployment'; governs: string }>;

export type Permission = keyof typeof PERMISSIONS;
export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Permission[];

/** A permission of deployments (grantable per deployment) or of the account. */
export const levelOf = (permission: Permission) => PERMISSIONS[permission].level;

/**
 * What a user holds beyond the built-in admin: per permission, `true` (every deployment, or the
 * account for an account permission) or the ids of the deployments it holds it on.
 */
export type Grants = Partial<Record<Permission, true | number[]>>;

/** What a non-admin user holds while no custom role is assigned: what members could always do. */
export const MEMBER_GRANTS: Grants = { WorkspaceEdit: true, DashboardsPublish: true };

/** The union of several roles' grants (a user holds the union of their roles). */
export function mergeGrants(list: readonly Grants[]): Grants {
  const merged: Grants = {};
  for (const grants of list) {
    for (const name of PERMISSION_NAMES) {
      const grant = grants[name];
      const held = merged[name];
      if (grant === undefined || held === true) continue;
      if (grant === true) merged[name] = true;
      else merged[name] = [...new Set([...(held ?? []), ...grant])].sort((a, b) => a - b);
    }
  }
  return merged;
}

/**
 * Whether `grants` hold `permission` where the request acts: on `deploymentId`, or (null) on no
 * particular deployment, which only an account-wide grant covers.
 */
export function allows(grants: Grants, permission: Permission, deploymentId: number | null): boolean {
  const grant = grants[permission];
  if (grant === undefined) return false;
  if (grant === true) return true;
  return deploymentId !== null && grant.includes(deploymentId);
}
