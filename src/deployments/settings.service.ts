import { ApiError, badRequest, notFound } from '../core/errors';
import { jsonLimitError } from '../core/json';
import type { AccountScope } from '../core/scope';
import * as repo from './deployments.repository';
import { REGIONS } from './deployments.schemas';
import { BRANCH, checkRegion, getDeployment, presentCube } from './deployments.service';
import { forgetServingState } from './serving-state';
import {
  type DeploymentSettings,
  RELEASE_CHANNELS,
  TEMPLATE_VARIABLES_LIMITS,
  type UpdateDeploymentInput,
} from './settings.schemas';

/**
 * Cube's side of a deployment that edgeboard has no runtime for: settings (stored, answered,
 * without effect), the creation wizard's step, deletion, runtime versions, pods and logs.
 */

/** The one runtime version every edgeboard deployment runs (`GET …/versions`). */
export const RUNTIME_VERSION = '1.0.0';

/** Settings edgeboard stores for Cube without acting on them (the `settings` JSON column). */
const STORED_SETTINGS = [
  'cspsConfig',
  'customDomain',
  'defaultLaunchpadViewGroup',
  'deployBranchMergeAllowed',
  'deployBranchName',
  'deployBranchReadOnly',
  'deployProjectRoot',
  'launchpadTabs',
  'releaseChannel',
  'releaseChannelVersion',
  'releaseChannelVersionHold',
  'template',
] as const;

/** Cube's `DeploymentSettings` of a deployment: stored values, else edgeboard's fixed ones. */
export function presentSettings(d: repo.DeploymentRow): DeploymentSettings {
  const s = (d.settings ?? {}) as Record<string, unknown>;
  const pick = <T>(key: string, fallback: T): T => (s[key] ?? fallback) as T;
  return {
    id: d.id,
    name: d.name,
    template: pick('template', 'single'),
    cloudProvider: d.cloudProvider === 'hosted' ? 'cubecloud' : d.cloudProvider,
    creationStep: d.creationStep,
    deploymentUrl: d.deploymentUrl,
    releaseChannel: pick('releaseChannel', 'latest'),
    deployBranchName: pick('deployBranchName', BRANCH),
    deployBranchReadOnly: pick('deployBranchReadOnly', false),
    deployBranchMergeAllowed: pick('deployBranchMergeAllowed', false),
    deployProjectRoot: pick('deployProjectRoot', '/'),
    isCubeSqlEnabled: false,
    isSupportPreAggregations: false,
    autoDomain: new URL(d.deploymentUrl).host,
    creationMethod: d.creationMethod === 'hosted' ? 'cubecloud' : d.creationMethod,
    cspsConfig: pick('cspsConfig', null),
    cubeImageCloud: null,
    cubeImageVersion: RUNTIME_VERSION,
    customDomain: pick('customDomain', null),
    defaultLaunchpadViewGroup: pick('defaultLaunchpadViewGroup', null),
    deployMode: d.deployMode,
    isCold: false,
    isManaged: d.isManaged,
    launchpadTabs: pick('launchpadTabs', null),
    region: d.region,
    releaseChannelVersion: pick('releaseChannelVersion', RUNTIME_VERSION),
    releaseChannelVersionHold: pick('releaseChannelVersionHold', false),
    repoType: null,
    targetPlatform: d.targetPlatform,
    templateVariables: pick('templateVariables', null),
  };
}

/** Attempts of an update before a deployment that keeps changing under it answers 409. */
const UPDATE_ATTEMPTS = 3;

/**
 * Cube's update: null or absent fields stay; `templateVariables` merges key by key into the
 * stored ones; a changed provider or region must still name a region the provider offers.
 * The merge is computed from the row read, and the write only lands while the columns it writes
 * still hold what was read, so two concurrent PUTs cannot drop each other's keys: the later one
 * reads again and merges onto the earlier one's result.
 */
export async function updateDeployment(
  scope: AccountScope,
  id: number,
  body: UpdateDeploymentInput | undefined,
): Promise<DeploymentSettings> {
  // No body is an empty one: nothing changes, and the settings are answered.
  const input = body ?? {};
  if (input.releaseChannelVersion != null && input.releaseChannelVersion !== RUNTIME_VERSION) {
    throw badRequest(`Version ${input.releaseChannelVersion} is not available`, [
      { path: 'releaseChannelVersion', message: `Expected ${RUNTIME_VERSION} (GET …/versions)` },
    ]);
  }
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
    const current = await getDeployment(scope, id);
    const values = merged(current, input, scope.now.toISOString());
    // Compare-and-set on every column written, as read: after a concurrent PUT this one reads again.
    const expected = Object.fromEntries(
      Object.keys(values).map((key) => [key, current[key as keyof typeof values]]),
    ) as Partial<repo.DeploymentRow>;
    const updated = await repo.updateDeployment(scope, id, values, expected);
    if (updated) return presentSettings(updated);
  }
  throw new ApiError('CONFLICT', 'The deployment kept changing while it was being updated; retry');
}

/** The columns an update writes: the stored values with the fields sent merged in. */
function merged(current: repo.DeploymentRow, input: UpdateDeploymentInput, updatedAt: string) {
  const cloudProvider = input.cloudProvider ?? current.cloudProvider;
  const region =
    input.region ??
    (input.cloudProvider != null && !REGIONS[cloudProvider].includes(current.region)
      ? (REGIONS[cloudProvider][0] as string)
      : current.region);
  checkRegion(cloudProvider, region);
  const settings: Record<string, unknown> = { ...(current.settings ?? {}) };
  for (const key of STORED_SETTINGS) {
    if (input[key] != null) settings[key] = input[key];
  }
  if (input.templateVariables != null) {
    settings.templateVariables = {
      ...((settings.templateVariables as Record<string, unknown> | undefined) ?? {}),
      ...input.templateVariables,
    };
    // The limit holds for what is stored, not only for each request's part of it: merged PUTs
    // must not grow the row without bound.
    const problem = jsonLimitError(settings.templateVariables, TEMPLATE_VARIABLES_LIMITS);
    if (problem)
      throw badRequest(`templateVariables: ${problem}`, [{ path: 'templateVariables', message: problem }]);
  }
  return {
    name: input.name ?? current.name,
    cloudProvider,
    region,
    creationMethod: input.creationMethod ?? current.creationMethod,
    deployMode: input.deployMode ?? current.deployMode,
    settings: Object.keys(settings).length > 0 ? settings : null,
    updatedAt,
  };
}

/** Moves the creation wizard to `creationStep` (advance) or back to its start (reset). */
export async function setCreationStep(
  scope: AccountScope,
  id: number,
  creationStep: repo.DeploymentRow['creationStep'],
) {
  const updated = await repo.updateDeployment(scope, id, {
    creationStep,
    updatedAt: scope.now.toISOString(),
  });
  if (!updated) throw notFound('Deployment');
  return presentCube(updated);
}

export async function deleteDeployment(scope: AccountScope, id: number) {
  const deleted = await repo.deleteDeployment(scope, id);
  if (deleted === null) throw notFound('Deployment');
  forgetServingState(deleted);
  return { success: true as const, id: deleted, deleted: true as const };
}

/**
 * Cube's runtime versions: edgeboard runs one, the same in both channels; the current one is
 * that of the channel the deployment's settings name.
 */
export function listVersions(d: repo.DeploymentRow) {
  const channel = presentSettings(d).releaseChannel;
  const version = {
    releaseChannelVersion: RUNTIME_VERSION,
    version: RUNTIME_VERSION,
    isLatestInChannel: true,
  };
  return {
    items: RELEASE_CHANNELS.map((releaseChannel) => ({
      ...version,
      releaseChannel,
      isCurrent: releaseChannel === channel,
    })),
    pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
  };
}

/** Cube's pods and logs: edgeboard runs no pods for a deployment, so there are none to list. */
export function emptyRuntimeList() {
  return {
    items: [],
    pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
  };
}
