import type * as v from 'valibot';
import type { BuildMessage, Db } from '../core/env';
import { ApiError, badRequest, notFound } from '../core/errors';
import { afterId, pageRequest, toPage } from '../core/pagination';
import { slugify } from '../core/text';
import * as repo from './deployments.repository';
import {
  type CloudProvider,
  type CreateDeploymentInput,
  type deploymentSchema,
  MAX_COUNTED_DEPLOYMENTS,
  REGIONS,
} from './deployments.schemas';

const SLUG_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function slugSuffix(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return [...bytes].map((b) => SLUG_ALPHABET[b % SLUG_ALPHABET.length]).join('');
}

/** A region must be one `GET /api/v1/regions` lists for the provider. */
export function checkRegion(cloudProvider: CloudProvider, region: string): void {
  const regions = REGIONS[cloudProvider];
  if (!regions.includes(region)) {
    throw badRequest(`Region ${region} is not offered for ${cloudProvider}`, [
      { path: 'region', message: `Expected one of ${regions.join(', ')} (GET /api/v1/regions)` },
    ]);
  }
}

/** The empty starter project every deployment begins with. */
export function starterProject(name: string): repo.StarterFile[] {
  return [
    {
      path: 'edgeboard.json',
      content: `${JSON.stringify({ name, version: 1, models: 'model/' }, null, 2)}\n`,
    },
    {
      path: 'model/README.md',
      content: '# Data model\n\nAdd cube and view definitions (YAML) to this folder.\n',
    },
  ];
}

export interface CreateDeploymentDeps {
  db: Db;
  queue: Queue<BuildMessage>;
  domain: string;
  now: string;
}

export async function createDeployment(
  deps: CreateDeploymentDeps,
  accountId: number,
  userId: number,
  input: CreateDeploymentInput,
) {
  const cloudProvider = input.cloudProvider ?? 'hosted';
  const region = input.region ?? (REGIONS[cloudProvider][0] as string);
  checkRegion(cloudProvider, region);
  const base = slugify(input.name) || 'deployment';
  const slug = `${base}-${slugSuffix()}`;
  const { deployment, buildId } = await repo.insertDeploymentWithBuild(
    deps.db,
    {
      accountId,
      name: input.name,
      slug,
      deploymentUrl: `https://${slug}.${deps.domain}`,
      isManaged: input.isManaged ?? true,
      cloudProvider,
      region,
      targetPlatform: input.targetPlatform ?? cloudProvider,
      creationStep: input.creationStep ?? 'project',
      creationMethod: input.creationMethod ?? 'hosted',
      deployMode: input.deployMode ?? 'git',
      createdBy: userId,
      createdAt: deps.now,
      updatedAt: deps.now,
    },
    starterProject(input.name),
  );
  try {
    await deps.queue.send({ kind: 'build', buildId });
  } catch (err) {
    // The build row is committed as queued; the cron sweep re-enqueues stranded builds.
    console.error(JSON.stringify({ event: 'build_enqueue_failed', buildId, error: String(err) }));
  }
  return presentCube(deployment);
}

/** Cube's `Deployment`: the four fields create, advance and reset answer. */
export function presentCube(d: repo.DeploymentRow) {
  return { id: d.id, name: d.name, deploymentUrl: d.deploymentUrl, creationStep: d.creationStep };
}

export function presentDeployment(
  d: NonNullable<Awaited<ReturnType<typeof repo.findDeployment>>>,
): v.InferOutput<typeof deploymentSchema> {
  return {
    id: d.id,
    name: d.name,
    slug: d.slug,
    deploymentUrl: d.deploymentUrl,
    isManaged: d.isManaged,
    cloudProvider: d.cloudProvider,
    region: d.region,
    targetPlatform: d.targetPlatform,
    creationStep: d.creationStep,
    creationMethod: d.creationMethod,
    deployMode: d.deployMode,
    createdBy: d.createdBy ?? null,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
    latestBuild: d.latestBuild
      ? { status: d.latestBuild.status, buildId: d.latestBuild.buildId, errorText: d.latestBuild.errorText }
      : null,
  };
}

export async function getDeployment(db: Db, accountId: number, id: number) {
  const deployment = await repo.findDeployment(db, accountId, id);
  if (!deployment) throw notFound('Deployment');
  return deployment;
}

/** The deployments of the account, only those of `deploymentIds` when a scoped key asks. */
export async function listDeployments(
  db: Db,
  accountId: number,
  deploymentIds: number[] | null,
  query: { first?: number; after?: string; offset?: number; limit?: number; creationStep?: string[] },
) {
  const request = pageRequest({ first: query.first ?? query.limit, after: query.after }, 'deployments', 1);
  const offset = query.offset ?? 0;
  const filter = { deploymentIds, creationSteps: query.creationStep ?? null };
  // `limit=0` (Cube's legacy paging) asks for the count alone.
  const { rows, total } = await repo.listDeployments(
    db,
    accountId,
    filter,
    request.limit === 0 ? null : { afterId: afterId(request), limit: request.limit, offset },
    MAX_COUNTED_DEPLOYMENTS,
  );
  const page = toPage(rows, request, 'deployments', (d) => [d.id], presentDeployment);
  const pageInfo = { ...page.pageInfo, hasPreviousPage: page.pageInfo.hasPreviousPage || offset > 0 };
  return {
    items: page.items,
    data: page.items,
    pagination: { total, offset, limit: request.limit },
    pageInfo,
  };
}

/** The branch every edgeboard deployment has, and the mode its builds run in. */
export const BRANCH = 'main';
const BUILD_MODE = 'production';

/** The latest build of a deployment: every deployment is created with its first build, in one batch. */
export async function getBuildStatus(db: Db, accountId: number, id: number, branchName?: string) {
  const deployment = await getDeployment(db, accountId, id);
  if (branchName !== undefined && branchName !== BRANCH) {
    throw new ApiError(
      'NOT_FOUND',
      `Branch ${branchName} not found: edgeboard deployments have one branch, ${BRANCH}`,
    );
  }
  const build = deployment.latestBuild;
  if (!build) throw new Error(`deployment ${id} has no build`);
  return {
    deploymentId: deployment.id,
    branchName: BRANCH,
    mode: BUILD_MODE,
    status: build.status,
    buildJobId: build.buildId,
    buildId: build.buildId,
    deploymentStatus: null,
    errorText: build.errorText,
    filesHash: null,
    lastHash: null,
    updatedAt: build.updatedAt,
  };
}

// ---- Building ----

/**
 * Compiles a project: the config must parse and name the project, and every model file must
 * be a YAML or Markdown file under the models folder. Returns an error text, or null when built.
 */
export function compileProject(files: repo.StarterFile[]): string | null {
  const config = files.find((f) => f.path === 'edgeboard.json');
  if (!config) return 'edgeboard.json is missing';
  let parsed: unknown;
  try {
    parsed = JSON.parse(config.content);
  } catch (err) {
    return `edgeboard.json is not valid JSON: ${(err as Error).message}`;
  }
  const models = (parsed as { models?: unknown }).models;
  if (typeof (parsed as { name?: unknown }).name !== 'string' || typeof models !== 'string') {
    return 'edgeboard.json needs a "name" and a "models" folder';
  }
  const stray = files.find(
    (f) => f.path !== 'edgeboard.json' && !(f.path.startsWith(models) && /\.(ya?ml|md)$/.test(f.path)),
  );
  return stray ? `${stray.path} is outside the models folder or not a model file` : null;
}

const STALE_BUILD_MS = 10 * 60 * 1000;

/** Runs one build delivery; safe to call again for the same build (see claimBuild). */
export async function runBuild(db: Db, buildId: number, now: Date): Promise<'built' | 'failed' | 'skipped'> {
  const claim = await repo.claimBuild(
    db,
    buildId,
    now.toISOString(),
    new Date(now.getTime() - STALE_BUILD_MS).toISOString(),
  );
  if (!claim) return 'skipped';
  const errorText = compileProject(await repo.readProjectFiles(db, claim.deploymentId));
  await repo.finishBuild(db, buildId, errorText, new Date().toISOString());
  return errorText === null ? 'built' : 'failed';
}

/** Cron: re-enqueue builds whose message was lost (enqueue failed, or the builder died). */
export async function sweepStrandedBuilds(db: Db, queue: Queue<BuildMessage>, now: Date): Promise<number> {
  const ids = await repo.findStrandedBuilds(
    db,
    new Date(now.getTime() - 60_000).toISOString(),
    new Date(now.getTime() - STALE_BUILD_MS).toISOString(),
    100,
  );
  if (ids.length > 0)
    await queue.sendBatch(ids.map((buildId) => ({ body: { kind: 'build' as const, buildId } })));
  return ids.length;
}
