import * as v from 'valibot';
import { CREATION_STEPS, DEPLOY_MODES } from '../../schema/deployments';
import { pageInfoSchema, pageQueryEntries } from '../core/pagination';
import { boundedObject, nonEmptyString, obj, shortText } from '../core/validation';
import { CUBE_HOSTED, cloudProviderInput, creationMethodInput } from './deployments.schemas';

/**
 * A deployment's settings as Cube reads and writes them, its creation step, and the runtime
 * lists (pods, logs, versions) edgeboard answers from what it has.
 */

// ---- Cube's deployment settings ----

export const TEMPLATES = ['single', 'simpleCluster', 'multiCluster'] as const;
export const RELEASE_CHANNELS = ['latest', 'release'] as const;

/** Cube's answer names `hosted` `cubecloud`: its settings enumerations have no `hosted`. */
export const CUBE_CLOUD_PROVIDERS = [CUBE_HOSTED, 'aws', 'gcp'] as const;
export const CUBE_CREATION_METHODS = ['upload', CUBE_HOSTED, 'github', 'ssh'] as const;

export const CSPS_CONFIG_FIELDS = [
  'awsRoleArn',
  'azureClientId',
  'azureContainer',
  'azureStorageAccount',
  'azureTenantId',
  'gcpServiceAccountEmail',
  'gcpWorkloadIdentityProvider',
  'gcsBucket',
  's3Bucket',
  's3Region',
  's3Sse',
] as const;

const cspsConfigInput = obj({
  enabled: v.boolean(),
  storageProvider: shortText(255),
  ...(Object.fromEntries(CSPS_CONFIG_FIELDS.map((f) => [f, v.nullish(shortText(1024))])) as Record<
    (typeof CSPS_CONFIG_FIELDS)[number],
    v.NullishSchema<
      v.SchemaWithPipe<[v.StringSchema<undefined>, v.MaxLengthAction<string, 1024, undefined>]>,
      undefined
    >
  >),
});

/** Template variables: merged key by key into the stored ones, 4 levels and 16 KiB at most. */
export const TEMPLATE_VARIABLES_LIMITS = { maxDepth: 4, maxBytes: 16 * 1024 };

/**
 * Cube's `UpdateDeploymentInput`. Every field may be null or absent (unchanged). `name`,
 * `cloudProvider`, `region`, `creationMethod` and `deployMode` change the deployment; the others
 * are Cube settings edgeboard stores and answers in `GET …/settings` without acting on them.
 */
export const updateDeploymentBody = v.optional(
  obj({
    name: v.nullish(nonEmptyString(255)),
    cloudProvider: v.nullish(cloudProviderInput),
    region: v.nullish(shortText(64)),
    creationMethod: v.nullish(creationMethodInput),
    deployMode: v.nullish(v.picklist(DEPLOY_MODES)),
    cspsConfig: v.nullish(cspsConfigInput),
    customDomain: v.nullish(shortText(255)),
    defaultLaunchpadViewGroup: v.nullish(shortText(255)),
    deployBranchMergeAllowed: v.nullish(v.boolean()),
    deployBranchName: v.nullish(shortText(255)),
    deployBranchReadOnly: v.nullish(v.boolean()),
    deployProjectRoot: v.nullish(shortText(1024)),
    launchpadTabs: v.nullish(v.pipe(v.array(shortText(255)), v.maxLength(50))),
    releaseChannel: v.nullish(v.picklist(RELEASE_CHANNELS)),
    releaseChannelVersion: v.nullish(
      v.pipe(shortText(64), v.description('One of the versions `GET …/versions` lists.')),
    ),
    releaseChannelVersionHold: v.nullish(v.boolean()),
    template: v.nullish(v.picklist(TEMPLATES)),
    templateVariables: v.nullish(boundedObject(TEMPLATE_VARIABLES_LIMITS)),
  }),
);

export type UpdateDeploymentInput = NonNullable<v.InferOutput<typeof updateDeploymentBody>>;

/** The CSPS settings as they were written: a field the update left out is absent. */
const cspsConfigSchema = v.object({
  enabled: v.boolean(),
  storageProvider: v.string(),
  ...(Object.fromEntries(CSPS_CONFIG_FIELDS.map((f) => [f, v.nullish(v.string())])) as Record<
    (typeof CSPS_CONFIG_FIELDS)[number],
    v.NullishSchema<v.StringSchema<undefined>, undefined>
  >),
});

/** Cube's `DeploymentSettings`: every field Cube requires, and its optional ones (null when unset). */
export const deploymentSettingsSchema = v.object({
  id: v.number(),
  name: v.string(),
  template: v.picklist(TEMPLATES),
  cloudProvider: v.picklist(CUBE_CLOUD_PROVIDERS),
  creationStep: v.picklist(CREATION_STEPS),
  deploymentUrl: v.string(),
  releaseChannel: v.picklist(RELEASE_CHANNELS),
  deployBranchName: v.string(),
  deployBranchReadOnly: v.boolean(),
  deployBranchMergeAllowed: v.boolean(),
  deployProjectRoot: v.string(),
  isCubeSqlEnabled: v.boolean(),
  isSupportPreAggregations: v.boolean(),
  autoDomain: v.nullable(v.string()),
  creationMethod: v.nullable(v.picklist(CUBE_CREATION_METHODS)),
  cspsConfig: v.nullable(cspsConfigSchema),
  cubeImageCloud: v.nullable(v.string()),
  cubeImageVersion: v.nullable(v.string()),
  customDomain: v.nullable(v.string()),
  defaultLaunchpadViewGroup: v.nullable(v.string()),
  deployMode: v.nullable(v.picklist(DEPLOY_MODES)),
  isCold: v.nullable(v.boolean()),
  isManaged: v.nullable(v.boolean()),
  launchpadTabs: v.nullable(v.array(v.string())),
  region: v.nullable(v.string()),
  releaseChannelVersion: v.nullable(v.string()),
  releaseChannelVersionHold: v.nullable(v.boolean()),
  repoType: v.nullable(v.picklist(['git', 'deployRepo'])),
  targetPlatform: v.nullable(v.string()),
  templateVariables: v.nullable(v.record(v.string(), v.unknown())),
});

export type DeploymentSettings = v.InferOutput<typeof deploymentSettingsSchema>;

export const advanceCreationStepBody = obj({ creationStep: v.picklist(CREATION_STEPS) });

/** Cube's delete answer (`success`) beside edgeboard's own (`id`, `deleted`). */
export const deploymentDeletedSchema = v.object({
  success: v.literal(true),
  id: v.number(),
  deleted: v.literal(true),
});

// ---- Runtime operations edgeboard answers from what it has ----

export const LOG_SOURCES = ['production', 'dev'] as const;
export const LOG_CONTAINERS = ['INIT', 'MAIN', 'cubejs-server', 'vector', 'api-proxy'] as const;

export const logsQuery = obj({
  ...pageQueryEntries,
  source: v.optional(v.picklist(LOG_SOURCES)),
  pod: v.optional(shortText(255)),
  container: v.optional(v.picklist(LOG_CONTAINERS)),
});

export const logsSchema = v.object({
  items: v.array(v.object({ pod: v.string(), date: v.string(), message: v.string() })),
  pageInfo: pageInfoSchema,
});

export const podsSchema = v.object({
  items: v.array(
    v.object({
      name: v.string(),
      containers: v.nullable(v.array(v.string())),
      ready: v.nullable(v.boolean()),
      restartCount: v.nullable(v.number()),
      status: v.nullable(v.string()),
      type: v.nullable(v.string()),
    }),
  ),
  pageInfo: pageInfoSchema,
});

export const versionsSchema = v.object({
  items: v.array(
    v.object({
      releaseChannelVersion: v.string(),
      version: v.string(),
      releaseChannel: v.picklist(RELEASE_CHANNELS),
      isLatestInChannel: v.boolean(),
      isCurrent: v.boolean(),
    }),
  ),
  pageInfo: pageInfoSchema,
});
