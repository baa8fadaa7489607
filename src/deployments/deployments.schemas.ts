import * as v from 'valibot';
import {
  BUILD_STATUSES,
  CLOUD_PROVIDERS,
  CREATION_METHODS,
  CREATION_STEPS,
  DEPLOY_MODES,
} from '../../schema/deployments';

export { CLOUD_PROVIDERS, CREATION_METHODS, CREATION_STEPS, DEPLOY_MODES };

import { nonEmptyString, obj } from '../core/validation';

export type CloudProvider = (typeof CLOUD_PROVIDERS)[number];

/** The regions each provider offers; the first is the provider's default. */
export const REGIONS: Record<CloudProvider, readonly string[]> = {
  hosted: ['us-east-1', 'eu-central-1', 'ap-southeast-1'],
  aws: ['us-east-1', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-1', 'ap-northeast-1'],
  gcp: ['us-central1', 'us-east1', 'europe-west1', 'asia-southeast1'],
};

export const createDeploymentBody = obj({
  name: nonEmptyString(255),
  isManaged: v.optional(v.boolean()),
  cloudProvider: v.optional(v.picklist(CLOUD_PROVIDERS)),
  region: v.optional(v.pipe(v.string(), v.maxLength(64))),
  targetPlatform: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(64))),
  creationStep: v.optional(v.picklist(CREATION_STEPS)),
  creationMethod: v.optional(v.picklist(CREATION_METHODS)),
  deployMode: v.optional(v.picklist(DEPLOY_MODES)),
});

export type CreateDeploymentInput = v.InferOutput<typeof createDeploymentBody>;

export const deploymentCreatedSchema = v.object({
  id: v.number(),
  name: v.string(),
  deploymentUrl: v.string(),
  creationStep: v.picklist(CREATION_STEPS),
});

export const buildStatusSchema = v.object({
  status: v.picklist(BUILD_STATUSES),
  buildId: v.number(),
  errorText: v.nullable(v.string()),
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
  latestBuild: v.nullable(buildStatusSchema),
});

export const regionsSchema = v.object({
  items: v.array(
    v.object({
      cloudProvider: v.picklist(CLOUD_PROVIDERS),
      regions: v.array(v.string()),
      defaultRegion: v.string(),
    }),
  ),
});

export const regionsQuery = obj({ cloudProvider: v.optional(v.picklist(CLOUD_PROVIDERS)) });
