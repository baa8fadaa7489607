import type * as v from 'valibot';
import { claimName } from '../control/claims.repository';
import type { BuildMessage, Db } from '../core/env';
import { ApiError, badRequest, orNotFound } from '../core/errors';
import { afterId, pageRequest, toPage } from '../core/pagination';
import type { AccountScope, RequestScope } from '../core/scope';
import { slugify } from '../core/text';
import { compileModel, isModelFile } from '../semantic/model/compile';
import type { CompiledModel, CompileResult, ModelError } from '../semantic/model/model.types';
import { STARTER_MODEL } from '../semantic/model/starter';
import { modelOfBuild } from './built-models';
import * as repo from './deployments.repository';
import {
  type CloudProvider,
  type CreateDeploymentInput,
  type deploymentSchema,
  MAX_COUNTED_DEPLOYMENTS,
  PROJECT_CONFIG_PATH,
  REGIONS,
} from './deployments.schemas';
import { forgetServingState } from './serving-state';

const SLUG_ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function slugSuffix(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return [...bytes].map((b) => SLUG_ALPHABET[b % SLUG_ALPHABET.length]).join('');
}

/**
 * A slug no deployment on any shard has (it names the deployment's URL): the name with a random
 * suffix, claimed in the control database before the shard writes it; another suffix on the rare
 * one already taken.
 */
async function claimSlug(scope: AccountScope, base: string): Promise<string> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const slug = `${base}-${slugSuffix()}`;
    if (await claimName(scope.control, 'deployment-slug', slug, scope.accountId, scope.now)) return slug;
  }
  throw new ApiError('CONFLICT', 'Could not find a free slug for this deployment name; try again');
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

/**
 * The starter project of a new deployment: the config, a README for the models folder and the
 * example model (which the first build compiles).
 */
export const STARTER = {
  files(name: string): repo.StarterFile[] {
    return [
      {
        path: PROJECT_CONFIG_PATH,
        content: `${JSON.stringify({ name, version: 1, models: 'model/' }, null, 2)}\n`,
      },
      {
        path: 'model/README.md',
        content: '# Data model\n\nAdd cube and view definitions (YAML) to this folder.\n',
      },
      ...STARTER_MODEL.map((f) => ({ path: f.path, content: f.content })),
    ];
  },
};

/** Creates a deployment with its starter project and queues its first build; `userId` is its creator. */
export async function createDeployment(scope: AccountScope, userId: number, input: CreateDeploymentInput) {
  const cloudProvider = input.cloudProvider ?? 'hosted';
  const region = input.region ?? (REGIONS[cloudProvider][0] as string);
  checkRegion(cloudProvider, region);
  const now = scope.now.toISOString();
  const slug = await claimSlug(scope, slugify(input.name) || 'deployment');
  const { deployment, buildId } = await repo.insertDeploymentWithBuild(
    scope.db,
    {
      accountId: scope.accountId,
      name: input.name,
      slug,
      deploymentUrl: `https://${slug}.${scope.env.DEPLOYMENTS_DOMAIN}`,
      isManaged: input.isManaged ?? true,
      cloudProvider,
      region,
      targetPlatform: input.targetPlatform ?? cloudProvider,
      creationStep: input.creationStep ?? 'project',
      creationMethod: input.creationMethod ?? 'hosted',
      deployMode: input.deployMode ?? 'git',
      createdBy: userId,
      createdAt: now,
      updatedAt: now,
    },
    STARTER.files(input.name),
  );
  await enqueueBuild(scope, buildId);
  return presentCube(deployment);
}

/**
 * Sends a committed build to the builders. A failed send is logged, not thrown: the build row is
 * committed as queued, and the cron sweep re-enqueues stranded builds.
 */
export async function enqueueBuild(scope: RequestScope, buildId: number): Promise<void> {
  try {
    await scope.env.BUILDS_QUEUE.send({ kind: 'build', buildId });
  } catch (err) {
    console.error(JSON.stringify({ event: 'build_enqueue_failed', buildId, error: String(err) }));
  }
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

/** The account's deployment `id` with its latest build; another account's is a 404. */
export async function getDeployment(scope: AccountScope, id: number) {
  return orNotFound(await repo.findDeployment(scope, id), 'Deployment');
}

/** The deployments of the account, only those of `deploymentIds` when a scoped key asks. */
export async function listDeployments(
  scope: AccountScope,
  deploymentIds: number[] | null,
  query: {
    first?: number;
    after?: string;
    offset?: number;
    limit?: number;
    creationStep?: repo.DeploymentRow['creationStep'][];
  },
) {
  const request = pageRequest({ first: query.first ?? query.limit, after: query.after }, 'deployments', 1);
  const offset = query.offset ?? 0;
  const filter = { deploymentIds, creationSteps: query.creationStep ?? null };
  // `limit=0` (Cube's legacy paging) asks for the count alone.
  const { rows, total } = await repo.listDeployments(
    scope,
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
export const BUILD_MODE = 'production';

/** Any branch but `main` is a 404: edgeboard deployments have one branch. */
export function checkBranch(branchName: string | null | undefined): void {
  if (branchName != null && branchName !== BRANCH) {
    throw new ApiError(
      'NOT_FOUND',
      `Branch ${branchName} not found: edgeboard deployments have one branch, ${BRANCH}`,
    );
  }
}

/** The latest build of a deployment: every deployment is created with its first build, in one batch. */
export async function getBuildStatus(scope: AccountScope, id: number, branchName?: string) {
  const deployment = await getDeployment(scope, id);
  checkBranch(branchName);
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

/** A compile's outcome: the model, or every error found (configuration errors alone stop it early). */
export type ProjectCompileResult = CompileResult;

/** The largest compiled model a build stores: D1 refuses a value over 1,000,000 bytes. */
export const MAX_COMPILED_MODEL_BYTES = 900_000;

/** At most this many errors are listed in a failed build's `errorText`. */
const MAX_LISTED_ERRORS = 50;

/** Where the model lives: the YAML files the compiler reads, and Markdown notes beside them. */
const MODELS_FOLDER = 'model/';
const DOC_FILE = /\.md$/;

const projectError = (file: string, message: string): ModelError => ({
  message,
  file,
  line: null,
  column: null,
});

/**
 * Compiles a project: `edgeboard.json` must parse and name the project and its models folder
 * (`model/`, the folder the model compiler reads), every other file must be a YAML or Markdown
 * file in that folder, and the YAML files are the data model (`compileModel`); Markdown files
 * are notes and are not compiled.
 */
export function compileProject(files: repo.StarterFile[]): ProjectCompileResult {
  const config = files.find((f) => f.path === PROJECT_CONFIG_PATH);
  if (!config) return { ok: false, errors: [projectError(PROJECT_CONFIG_PATH, 'edgeboard.json is missing')] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(config.content);
  } catch (err) {
    return {
      ok: false,
      errors: [
        projectError(PROJECT_CONFIG_PATH, `edgeboard.json is not valid JSON: ${(err as Error).message}`),
      ],
    };
  }
  const models = (parsed as { models?: unknown } | null)?.models;
  if (typeof (parsed as { name?: unknown } | null)?.name !== 'string' || typeof models !== 'string') {
    return {
      ok: false,
      errors: [projectError(PROJECT_CONFIG_PATH, 'edgeboard.json needs a "name" and a "models" folder')],
    };
  }
  if (models !== MODELS_FOLDER) {
    return {
      ok: false,
      errors: [
        projectError(
          PROJECT_CONFIG_PATH,
          `edgeboard.json: "models" must be "${MODELS_FOLDER}", the one models folder`,
        ),
      ],
    };
  }
  const strays = files.filter(
    (f) =>
      f.path !== PROJECT_CONFIG_PATH &&
      !isModelFile(f.path) &&
      !(f.path.startsWith(MODELS_FOLDER) && DOC_FILE.test(f.path)),
  );
  if (strays.length > 0) {
    return {
      ok: false,
      errors: strays.map((f) =>
        projectError(f.path, `${f.path} is outside the models folder or not a model file`),
      ),
    };
  }
  return compileModel(files);
}

/**
 * One error as a line: `file:line:column: message` where the position is known, else the message
 * after its file (unless the message already starts with it).
 */
export function formatModelError(error: ModelError): string {
  if (error.file === null) return error.message;
  if (error.line !== null) return `${error.file}:${error.line}:${error.column ?? 1}: ${error.message}`;
  return error.message.startsWith(error.file) ? error.message : `${error.file}: ${error.message}`;
}

/** A failed build's `errorText`: one error per line, the first 50, then how many more there are. */
export function buildErrorText(errors: ModelError[]): string {
  const lines = errors.slice(0, MAX_LISTED_ERRORS).map(formatModelError);
  if (errors.length > MAX_LISTED_ERRORS) lines.push(`… and ${errors.length - MAX_LISTED_ERRORS} more errors`);
  return lines.join('\n');
}

const STALE_BUILD_MS = 10 * 60 * 1000;

/** What one build delivery did: a build that built answers the model it now serves. */
export type BuildRun =
  | { state: 'built'; deploymentId: number; model: CompiledModel }
  | { state: 'failed' | 'skipped' };

/**
 * Runs one build delivery (`scope.now`: when it was picked up); safe to call again for the same
 * build (see claimBuild).
 */
export async function runBuild(scope: RequestScope, buildId: number): Promise<BuildRun> {
  const claim = await repo.claimBuild(scope, buildId, new Date(scope.now.getTime() - STALE_BUILD_MS));
  if (!claim) return { state: 'skipped' };
  const result = compileProject(await repo.readProjectFiles(scope.db, claim.deploymentId));
  let outcome: repo.BuildOutcome;
  if (result.ok) {
    const json = JSON.stringify(result.model);
    const bytes = new TextEncoder().encode(json).byteLength;
    outcome =
      bytes > MAX_COMPILED_MODEL_BYTES
        ? {
            errorText: `The compiled model is ${bytes} bytes, over the ${MAX_COMPILED_MODEL_BYTES}-byte limit: split it across deployments or remove members`,
          }
        : {
            compiledModel: json,
            hasPreAggregations: Object.values(result.model.cubes).some(
              (c) => (c.preAggregations?.length ?? 0) > 0,
            ),
          };
  } else {
    outcome = { errorText: buildErrorText(result.errors) };
  }
  // When the compile ended, not when it began: it may have taken a while.
  await repo.finishBuild(scope.db, buildId, outcome, scope.ports.clock.now());
  forgetServingState(claim.deploymentId);
  return result.ok && 'compiledModel' in outcome
    ? { state: 'built', deploymentId: claim.deploymentId, model: result.model }
    : { state: 'failed' };
}

/**
 * The model a deployment serves: its latest build that built, so a failed build leaves the last
 * good model in place. Null before any build has succeeded. The caller has already checked that
 * the deployment is the caller's.
 */
export async function activeModel(
  db: Db,
  deploymentId: number,
): Promise<{ buildId: number; model: CompiledModel } | null> {
  const buildId = await repo.latestBuiltId(db, deploymentId);
  const model = buildId === null ? null : await modelOfBuild(db, buildId);
  return buildId !== null && model ? { buildId, model } : null;
}

/** Cron: re-enqueue builds whose message was lost (enqueue failed, or the builder died). */
export async function sweepStrandedBuilds(scope: RequestScope): Promise<number> {
  const { now } = scope;
  const ids = await repo.findStrandedBuilds(
    scope.db,
    new Date(now.getTime() - 60_000),
    new Date(now.getTime() - STALE_BUILD_MS),
    100,
  );
  if (ids.length > 0) {
    const messages = ids.map(
      (buildId): MessageSendRequest<BuildMessage> => ({ body: { kind: 'build', buildId } }),
    );
    await scope.env.BUILDS_QUEUE.sendBatch(messages);
  }
  return ids.length;
}
