import * as v from 'valibot';
import {
  BUILD_STATUSES,
  CLOUD_PROVIDERS,
  CREATION_METHODS,
  CREATION_STEPS,
  DEPLOY_MODES,
} from '../../schema/deployments';

export { CLOUD_PROVIDERS, CREATION_METHODS, CREATION_STEPS, DEPLOY_MODES };

import { MAX_PAGE_SIZE, pageInfoSchema, pageQueryEntries } from '../core/pagination';
import { boundedObject, integerString, nonEmptyString, obj } from '../core/validation';

export type CloudProvider = (typeof CLOUD_PROVIDERS)[number];

/** Cube's name of edgeboard's own hosting (`hosted` in the spec): accepted wherever `hosted` is. */
export const CUBE_HOSTED = 'cubecloud';

/**
 * Cube's one item per region, with a fixed id per provider and region: a new region gets a new
 * id, so ids never move. The one table of regions: REGIONS (what `region` takes on create) derives
 * from it, the first of a provider being its default.
 */
export const REGION_ENTRIES: readonly (readonly [
  id: number,
  provider: CloudProvider,
  name: string,
  title: string,
])[] = [
  [1, 'hosted', 'us-east-1', 'US East (N. Virginia)'],
  [2, 'hosted', 'eu-central-1', 'Europe (Frankfurt)'],
  [3, 'hosted', 'ap-southeast-1', 'Asia Pacific (Singapore)'],
  [4, 'aws', 'us-east-1', 'US East (N. Virginia)'],
  [5, 'aws', 'us-west-2', 'US West (Oregon)'],
  [6, 'aws', 'eu-west-1', 'Europe (Ireland)'],
  [7, 'aws', 'eu-central-1', 'Europe (Frankfurt)'],
  [8, 'aws', 'ap-southeast-1', 'Asia Pacific (Singapore)'],
  [9, 'aws', 'ap-northeast-1', 'Asia Pacific (Tokyo)'],
  [10, 'gcp', 'us-central1', 'US Central (Iowa)'],
  [11, 'gcp', 'us-east1', 'US East (South Carolina)'],
  [12, 'gcp', 'europe-west1', 'Europe West (Belgium)'],
  [13, 'gcp', 'asia-southeast1', 'Asia Southeast (Singapore)'],
];

/** The regions each provider offers; the first is the provider's default. */
const regionsOf = (p: CloudProvider): readonly string[] =>
  REGION_ENTRIES.filter(([, provider]) => provider === p).map(([, , name]) => name);
export const REGIONS: Record<CloudProvider, readonly string[]> = {
  hosted: regionsOf('hosted'),
  aws: regionsOf('aws'),
  gcp: regionsOf('gcp'),
};

/** `hosted` under either of its names, stored as `hosted`. */
const hostedAlias = <T extends readonly string[]>(values: T, description: string) =>
  v.pipe(
    v.picklist([...values, CUBE_HOSTED] as [...T, typeof CUBE_HOSTED]),
    v.transform((x) => (x === CUBE_HOSTED ? 'hosted' : x) as T[number]),
    v.description(description),
  );

export const cloudProviderInput = hostedAlias(
  CLOUD_PROVIDERS,
  '`cubecloud` (Cube’s name) and `hosted` are the same provider, stored as `hosted`.',
);
export const creationMethodInput = hostedAlias(
  CREATION_METHODS,
  '`cubecloud` (Cube’s name) and `hosted` are the same method, stored as `hosted`.',
);

export const createDeploymentBody = obj({
  name: nonEmptyString(255),
  isManaged: v.optional(v.boolean()),
  cloudProvider: v.optional(cloudProviderInput),
  region: v.optional(v.pipe(v.string(), v.maxLength(64))),
  targetPlatform: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(64))),
  creationStep: v.optional(v.picklist(CREATION_STEPS)),
  creationMethod: v.nullish(creationMethodInput),
  deployMode: v.nullish(v.picklist(DEPLOY_MODES)),
});

export type CreateDeploymentInput = v.InferOutput<typeof createDeploymentBody>;

/** Cube's `Deployment`: the answer of create, advance and reset. */
export const deploymentCreatedSchema = v.object({
  id: v.number(),
  name: v.string(),
  deploymentUrl: v.string(),
  creationStep: v.picklist(CREATION_STEPS),
});

/** The latest build inside a deployment record (edgeboard's own field). */
export const latestBuildSchema = v.object({
  status: v.picklist(BUILD_STATUSES),
  buildId: v.number(),
  errorText: v.nullable(v.string()),
});

/** Cube's `BuildStatusResponse`, plus edgeboard's `buildId` (the same value as `buildJobId`). */
export const buildStatusSchema = v.object({
  deploymentId: v.number(),
  branchName: v.string(),
  mode: v.string(),
  status: v.picklist(BUILD_STATUSES),
  buildJobId: v.number(),
  buildId: v.number(),
  deploymentStatus: v.nullable(v.string()),
  errorText: v.nullable(v.string()),
  filesHash: v.nullable(v.string()),
  lastHash: v.nullable(v.string()),
  updatedAt: v.string(),
});

/** The project's config file: its name and the folder holding its model. */
export const PROJECT_CONFIG_PATH = 'edgeboard.json';

export const buildStatusQuery = obj({
  branchName: v.optional(
    v.pipe(v.string(), v.maxLength(255), v.description('edgeboard deployments have one branch, `main`.')),
  ),
});

export const deploymentSchema = v.object({
  id: v.number(),
  name: v.string(),
  slug: v.string(),
  deploymentUrl: v.string(),
  isManaged: v.boolean(),
  cloudProvider: v.picklist(CLOUD_PROVIDERS),
  region: v.string(),
  targetPlatform: v.string(),
  creationStep: v.picklist(CREATION_STEPS),
  creationMethod: v.picklist(CREATION_METHODS),
  deployMode: v.picklist(DEPLOY_MODES),
  createdBy: v.nullable(v.number()),
  createdAt: v.string(),
  updatedAt: v.string(),
  latestBuild: v.nullable(latestBuildSchema),
});

/** The deepest `offset` reads: OFFSET walks the rows it skips, so it stays bounded. */
export const MAX_LIST_OFFSET = 1000;

const intString = (min: number, max: number, description: string) =>
  v.pipe(integerString(min, max), v.description(description));

const creationStepFilter = v.pipe(
  v.union([v.picklist(CREATION_STEPS), v.array(v.picklist(CREATION_STEPS))]),
  v.transform((x) => (Array.isArray(x) ? x : [x])),
  v.description('Only deployments at one of these steps; repeat the parameter for several.'),
);

export const listDeploymentsQuery = obj({
  ...pageQueryEntries,
  creationStep: v.optional(creationStepFilter),
  offset: v.optional(
    intString(
      0,
      MAX_LIST_OFFSET,
      `Cube's legacy paging: rows to skip (0–${MAX_LIST_OFFSET}); \`after\` pages without a bound.`,
    ),
  ),
  limit: v.optional(
    intString(
      0,
      MAX_PAGE_SIZE,
      `Cube's legacy paging: the same as \`first\` (0–${MAX_PAGE_SIZE}; 0 answers no items).`,
    ),
  ),
});

/** The most deployments `pagination.total` counts (a bounded count, index-served). */
export const MAX_COUNTED_DEPLOYMENTS = 1000;

export const deploymentsListSchema = v.object({
  items: v.array(deploymentSchema),
  data: v.pipe(v.array(deploymentSchema), v.description('Cube’s legacy name of `items` (same items).')),
  pagination: v.pipe(
    v.object({ total: v.number(), offset: v.number(), limit: v.number() }),
    v.description(
      `Cube's legacy paging. \`total\` counts the matching deployments up to ${MAX_COUNTED_DEPLOYMENTS}; ` +
        'a larger set reports that number: page with `pageInfo` to the end.',
    ),
  ),
  pageInfo: pageInfoSchema,
});

// ---- Cube's deployment settings ----

export const TEMPLATES = ['single', 'simpleCluster', 'multiCluster'] as const;
export const RELEASE_CHANNELS = ['latest', 'release'] as const;

/** Cube's answer names `hosted` `cubecloud`: its settings enumerations have no `hosted`. */
export const CUBE_CLOUD_PROVIDERS = [CUBE_HOSTED, 'aws', 'gcp'] as const;
export const CUBE_CREATION_METHODS = ['upload', CUBE_HOSTED, 'github', 'ssh'] as const;

const shortText = (max: number) => v.pipe(v.string(), v.maxLength(max));

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

// ---- Regions ----

export const regionSchema = v.object({
  id: v.number(),
  name: v.string(),
  provider: v.nullable(v.picklist(CLOUD_PROVIDERS)),
  title: v.nullable(v.string()),
  isDedicated: v.nullable(v.boolean()),
  isHybrid: v.nullable(v.boolean()),
  isPublic: v.nullable(v.boolean()),
  useAiEngineer: v.nullable(v.boolean()),
  /** edgeboard's: whether this is the provider's default region. */
  isDefault: v.boolean(),
});

export const regionsSchema = v.object({
  items: v.array(regionSchema),
  data: v.pipe(v.array(regionSchema), v.description('Cube’s legacy name of `items` (same items).')),
  pageInfo: pageInfoSchema,
});

export const regionsQuery = obj({
  ...pageQueryEntries,
  cloudProvider: v.optional(cloudProviderInput),
});
