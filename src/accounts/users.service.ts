import { ApiError, badRequest, conflict, notFound } from '../core/errors';
import type { AccountPrincipal } from '../core/principal';
import type { AccountScope } from '../core/scope';
import { withoutNulls } from '../core/validation';
import type { User } from './accounts.schemas';
import * as repo from './users.repository';
import type {
  BulkUserActionInput,
  BulkUserActionResult,
  UpdateUserInput,
  UserSettingsInput,
} from './users.schemas';

/** Admins and API keys (which act as the account's admin) may act on admins and grant the role. */
export const actsAsAdmin = (principal: AccountPrincipal): boolean =>
  principal.kind === 'apiKey' || principal.role === 'admin';

/** The caller's own user: an access token's. An API key is the account's and has no self. */
const selfOf = (principal: AccountPrincipal): number | null =>
  principal.kind === 'user' ? principal.userId : null;

export const adminOnly = () =>
  new ApiError('FORBIDDEN', 'Only an admin may change an admin user or grant the admin role');

const lastAdmin = () =>
  conflict('An account keeps at least one active admin: this change would remove the last one');

const SELF_DEACTIVATE = 'You cannot deactivate yourself';
const SELF_DELETE = 'You cannot delete yourself';

/**
 * Why a guarded write of user `id` did nothing: the user is not the account's (404), a caller
 * who is not an admin aimed at an admin (403), the settings named another account's deployment
 * (404), else the change would have taken the last active admin away (409).
 */
async function refusal(scope: AccountScope, id: number, defaultDeploymentId?: number): Promise<ApiError> {
  const { user, deploymentFound } = await repo.refusalState(scope, id, defaultDeploymentId);
  if (!user) return notFound('User');
  if (!actsAsAdmin(scope.principal) && user.role === 'admin') return adminOnly();
  if (!deploymentFound) return notFound('Deployment');
  return lastAdmin();
}

/** A settings patch as stored: Cube's deprecated `lastSeenChangelogId` is dropped, nulls clear. */
function settingsChanges(settings: UserSettingsInput | undefined): repo.UserChanges {
  if (!settings) return {};
  const { lastSeenChangelogId: _ignored, ...patch } = settings;
  const deploymentId = patch.defaultDeploymentId;
  return {
    settingsPatch: patch,
    ...(typeof deploymentId === 'number' ? { defaultDeploymentId: deploymentId } : {}),
  };
}

/** Only the changes a request makes: drizzle must not see a key whose value is undefined. */
function defined<T extends object>(changes: T): T {
  return Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as T;
}

/** Cube's updateUser: a null field is one not sent. */
export async function updateUser(scope: AccountScope, id: number, input: UpdateUserInput): Promise<User> {
  const body = withoutNulls(input);
  const actorIsAdmin = actsAsAdmin(scope.principal);
  if (body.isAdmin === true && !actorIsAdmin) throw adminOnly();
  if (body.isDeactivated === true && selfOf(scope.principal) === id)
    throw new ApiError('FORBIDDEN', SELF_DEACTIVATE);
  const changes = defined<repo.UserChanges>({
    firstName: body.firstName,
    picture: body.picture,
    title: body.title,
    role: body.isAdmin === undefined ? undefined : body.isAdmin ? 'admin' : 'member',
    deactivated: body.isDeactivated,
    notifications: body.notifications && [...new Set(body.notifications)].sort(),
    ...settingsChanges(body.settings),
  });
  const removesActiveAdmin = body.isAdmin === false || body.isDeactivated === true;
  const user = await repo.updateUser(scope, id, changes, { actorIsAdmin, removesActiveAdmin });
  if (user) return user;
  throw await refusal(scope, id, changes.defaultDeploymentId);
}

/** Cube's updateMySettings: merges a patch into the caller's own settings. */
export async function updateMySettings(
  scope: AccountScope,
  userId: number,
  settings: UserSettingsInput,
): Promise<User> {
  const changes = settingsChanges(settings);
  const guard = { actorIsAdmin: true, removesActiveAdmin: false };
  const user = await repo.updateUser(scope, userId, changes, guard);
  if (user) return user;
  throw await refusal(scope, userId, changes.defaultDeploymentId);
}

/**
 * Deletes a user with their access tokens and role assignments (one batch). What they authored
 * stays, its `createdBy` (and the like) set to null by the schema's foreign keys.
 */
export async function deleteUser(scope: AccountScope, id: number) {
  if (selfOf(scope.principal) === id) throw badRequest(SELF_DELETE);
  const guard = { actorIsAdmin: actsAsAdmin(scope.principal), removesActiveAdmin: true };
  if (!(await repo.deleteUser(scope, id, guard))) throw await refusal(scope, id);
  return { id, deleted: true as const };
}

type Failure = BulkUserActionResult['failed'][number];

/**
 * Cube's bulkUserAction, partially successful: every distinct id gets an outcome, in the order
 * given. Unknown ids, the caller's own and admins (for a caller who is not one) fail before the
 * batch; the batch applies the rest in order, each under the last-admin guard.
 */
export async function bulkUserAction(
  scope: AccountScope,
  input: BulkUserActionInput,
): Promise<BulkUserActionResult> {
  const { action } = input;
  const ids = [...new Set(input.userIds)];
  const actorIsAdmin = actsAsAdmin(scope.principal);
  const self = selfOf(scope.principal);
  const states = new Map((await repo.findUserStates(scope, ids)).map((s) => [s.id, s]));
  const refused = new Map<number, Failure['error']>();
  const attempted: number[] = [];
  for (const id of ids) {
    const state = states.get(id);
    if (!state) refused.set(id, { status: 404, message: 'User not found' });
    else if (id === self && action === 'DEACTIVATE')
      refused.set(id, { status: 403, message: SELF_DEACTIVATE });
    else if (id === self && action === 'DELETE') refused.set(id, { status: 400, message: SELF_DELETE });
    else if (!actorIsAdmin && state.role === 'admin')
      refused.set(id, { status: 403, message: adminOnly().message });
    else attempted.push(id);
  }
  const changed = await repo.applyBulk(scope, action, attempted, actorIsAdmin);
  const succeeded: number[] = [];
  const failed: Failure[] = [];
  for (const id of ids) {
    if (changed.has(id)) succeeded.push(id);
    else failed.push({ userId: id, error: refused.get(id) ?? { status: 409, message: lastAdmin().message } });
  }
  return { action, succeeded, failed };
}
