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
import { integerString, nonEmptyString, obj } from '../core/validation';

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
