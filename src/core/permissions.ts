/**
 * The permissions edgeboard's routes need, and the Cube actions custom roles grant them with.
 *
 * A route group or route declares the permission it needs (`permission` in src/http/route.ts)
 * and the auth layer checks it against the caller's grants, which are read with the credential
 * (src/auth/auth.repository.ts), so the check costs no query. Roles speak Cube's `Policy.actions`
 * on the wire; each permission names the Cube actions that together mean the same thing
 * (`grantedBy`): a role grants the permission where its policies hold every one of them.
 * A permission no Cube action stands for (`grantedBy` empty) is the admin role's alone, as Cube
 * reserves those operations to admins.
 *
 * `deployment` permissions may be granted on every deployment or on some; `account` ones only
 * account-wide (their routes belong to no deployment).
 */

/** Cube's `Policy.actions` enum, in the order of Cube's document. */
export const CUBE_ACTIONS = [
  'All',
  'DeploymentsManage',
  'DeploymentCreate',
  'DeploymentRead',
  'DeploymentUpdate',
  'DeploymentDelete',
  'SecretsManage',
  'DownloadData',
  'PlaygroundRead',
  'SchemaRead',
  'SchemaUpdate',
  'SchemaUpdateDevBranches',
  'APMRead',
  'ChatHistoryRead',
  'PreAggregationBuild',
  'AlertsCreate',
  'AlertsRead',
  'AlertsUpdate',
  'AlertsDelete',
  'AuditLogManage',
  'BillingRead',
  'SqlRunnerRead',
  'DataAssetsRead',
  'DataAssetsManage',
  'CubeNetworkConnect',
  'ReportRead',
  'ReportEdit',
  'ReportManage',
  'WorkbookManage',
  'WorkbookRead',
  'WorkbookEdit',
  'ChatThreadRead',
  'AgentManage',
  'AgentRead',
  'AgentSpaceManage',
  'AgentAdmin',
  'DeploymentAgentRead',
  'OAuthIntegrationsManage',
  'OAuthIntegrationsIssueTokens',
  'McpToolsManage',
  'AIBIDevelop',
  'AIBIExplore',
  'AIBIView',
  'ChartPalettesManage',
  'DashboardThemesManage',
  'AIBIDeveloper',
  'AIBIUser',
  'AIBIViewer',
  'EmbedDeploymentRead',
  'EmbedDashboardRead',
  'FolderRead',
  'FolderEdit',
  'FolderManage',
] as const;

export type CubeAction = (typeof CUBE_ACTIONS)[number];

/** Cube's action standing for every action (and so every permission its policy can grant). */
export const ALL_ACTIONS = 'All' satisfies CubeAction;

/**
 * Cube's actions that include others, as its console nests them: managing a kind of object
 * includes editing it, and managing deployments includes creating, changing and deleting them.
 */
const INCLUDES: Partial<Record<CubeAction, readonly CubeAction[]>> = {
  DeploymentsManage: ['DeploymentCreate', 'DeploymentRead', 'DeploymentUpdate', 'DeploymentDelete'],
  WorkbookManage: ['WorkbookEdit', 'WorkbookRead'],
  WorkbookEdit: ['WorkbookRead'],
  ReportManage: ['ReportEdit', 'ReportRead'],
  ReportEdit: ['ReportRead'],
  FolderManage: ['FolderEdit', 'FolderRead'],
  FolderEdit: ['FolderRead'],
  DataAssetsManage: ['DataAssetsRead'],
  SchemaUpdate: ['SchemaRead'],
};

/** The actions `actions` hold: themselves, what they include, and every action for `All`. */
export function heldActions(actions: readonly string[]): Set<CubeAction> {
  if (actions.includes(ALL_ACTIONS)) return new Set(CUBE_ACTIONS);
  const held = new Set<CubeAction>();
  const add = (action: CubeAction) => {
    if (held.has(action)) return;
    held.add(action);
    for (const included of INCLUDES[action] ?? []) add(included);
  };
  for (const action of actions)
    if ((CUBE_ACTIONS as readonly string[]).includes(action)) add(action as CubeAction);
  return held;
}

export const PERMISSIONS = {
  WorkspaceEdit: {
    level: 'deployment',
    grantedBy: ['WorkbookEdit', 'FolderEdit', 'ReportEdit'],
    governs:
      'Creating, changing, moving and deleting folders, workbooks and reports (single and bulk), duplicating workbooks, connecting and refreshing reports, and saving a dashboard draft.',
  },
  DashboardsPublish: {
    level: 'deployment',
    grantedBy: ['WorkbookManage'],
    governs: 'Publishing a workbook’s dashboard.',
  },
  NotificationsManage: {
    level: 'deployment',
    grantedBy: ['AlertsRead', 'AlertsCreate', 'AlertsUpdate', 'AlertsDelete'],
    governs: 'Every notification route: schedules, recipients, runs and deliveries, run now.',
  },
  DeploymentsManage: {
    level: 'deployment',
    grantedBy: ['DeploymentCreate', 'DeploymentUpdate', 'DeploymentDelete'],
    governs:
      'Creating (account-wide grant only), changing and deleting deployments, their creation step, and issuing a deployment’s Cube API token.',
  },
  SchemaUpdate: {
    level: 'deployment',
    grantedBy: ['SchemaUpdate'],
    governs: 'Writing data-model files: update, remove, rename, and uploads (start, file, finish).',
  },
  SecretsManage: {
    level: 'deployment',
    grantedBy: ['SecretsManage'],
    governs: 'Setting a deployment’s env variables.',
  },
  PreAggregationBuild: {
    level: 'deployment',
    grantedBy: ['PreAggregationBuild'],
    governs: 'Triggering pre-aggregation builds through the Orchestration API (`…/pre-aggregations/jobs`).',
  },
  DataStoreManage: {
    level: 'deployment',
    grantedBy: ['DataAssetsManage'],
    governs: 'Importing CSV into the embedded data store and dropping its tables.',
  },
  EmbeddingManage: {
    level: 'account',
    grantedBy: [],
    governs:
      'Revoking embed sessions, a dashboard’s embedding switches and embed access, groups, user attributes, embed tenants and their users.',
  },
  UsersManage: {
    level: 'account',
    grantedBy: [],
    governs:
      'Creating, listing, reading, changing, deactivating, reactivating and deleting users who are not admins (single and bulk).',
  },
} as const satisfies Record<
  string,
  { level: 'account' | 'deployment'; grantedBy: readonly CubeAction[]; governs: string }
>;

export type Permission = keyof typeof PERMISSIONS;
export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Permission[];

/** A permission of deployments (grantable per deployment) or of the account. */
export const levelOf = (permission: Permission) => PERMISSIONS[permission].level;

/** The Cube actions a role needs, all of them, to grant `permission`; empty: the admin role's alone. */
export const grantedBy = (permission: Permission): readonly CubeAction[] => PERMISSIONS[permission].grantedBy;

/** Whether only the admin role (and API keys) hold `permission`: no Cube action grants it. */
export const adminOnly = (permission: Permission) => grantedBy(permission).length === 0;

/**
 * What a user holds beyond the built-in admin: per permission, `true` (every deployment, or the
 * account for an account permission) or the ids of the deployments it holds it on.
 */
export type Grants = Partial<Record<Permission, Grant>>;

/** What a non-admin user holds while no custom role is assigned: what members could always do. */
export const MEMBER_GRANTS: Grants = { WorkspaceEdit: true, DashboardsPublish: true };

/** Where a grant holds: everywhere (true), or on these deployment ids. */
export type Grant = true | number[];

/** Where either grant holds: everywhere if either does, else both lists' ids, sorted, without repeats. */
export function uniteGrants(held: Grant | undefined, more: Grant): Grant {
  if (held === true || more === true) return true;
  return [...new Set([...(held ?? []), ...more])].sort((a, b) => a - b);
}

/** The union of several roles' grants (a user holds the union of their roles). */
export function mergeGrants(list: readonly Grants[]): Grants {
  const merged: Grants = {};
  for (const grants of list) {
    for (const name of PERMISSION_NAMES) {
      const grant = grants[name];
      if (grant !== undefined) merged[name] = uniteGrants(merged[name], grant);
    }
  }
  return merged;
}

/**
 * Whether `grants` hold `permission` where the request acts: on `deploymentId`, or (null) on no
 * particular deployment, which only an account-wide grant covers. A permission no Cube action
 * grants is never held through grants (a role stored before roles spoke Cube's actions may
 * still list it): only the admin role holds it.
 */
export function allows(grants: Grants, permission: Permission, deploymentId: number | null): boolean {
  if (adminOnly(permission)) return false;
  const grant = grants[permission];
  if (grant === undefined) return false;
  if (grant === true) return true;
  return deploymentId !== null && grant.includes(deploymentId);
}
