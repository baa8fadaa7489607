import type { MiddlewareHandler } from 'hono';
import { describeRoute, resolver } from 'hono-openapi';
import type * as v from 'valibot';
import { ERROR_STATUS } from './errors';

/**
 * How a route authenticates; each maps to a security scheme of the document. An embed session
 * comes in the Authorization header or `?session=` (`session`), in the header only
 * (`sessionHeader`), or optionally in `?session=` (`sessionPage`: a page without one still loads).
 */
export type AuthKind =
  | 'bearer'
  | 'apiKey'
  | 'bearerOrApiKey'
  | 'operator'
  | 'session'
  | 'sessionHeader'
  | 'sessionPage'
  | 'cubeApi'
  | 'none';

const SECURITY: Record<AuthKind, Record<string, string[]>[]> = {
  bearer: [{ bearerAuth: [] }],
  apiKey: [{ apiKeyAuth: [] }],
  bearerOrApiKey: [{ bearerAuth: [] }, { apiKeyAuth: [] }],
  operator: [{ operatorAuth: [] }],
  session: [{ sessionAuth: [] }, { sessionQuery: [] }],
  sessionHeader: [{ sessionAuth: [] }],
  sessionPage: [{ sessionQuery: [] }, {}],
  cubeApi: [{ cubeApiToken: [] }],
  none: [],
};

const ERROR_TEXT: Record<number, string> = {
  400: 'Bad input: malformed JSON, a wrong type, a missing, unknown or out-of-range field, or a malformed cursor',
  401: 'Missing, malformed, unknown or expired credential',
  403: 'Valid credential without the right (role, key scope, plan, feature flag)',
  404: 'Unknown resource, or a resource of another account',
  409: 'Conflict with the current state',
  413: 'Body larger than 1 MiB',
  415: 'Body that is not JSON',
  422: 'The job failed for good (a dashboard export whose render failed): start another',
  429: 'Rate or quota limit reached',
  502: 'The deployment’s data source could not be reached',
  503: 'The account is being moved to another database by the operator: writes resume when the move ends (ACCOUNT_MOVING, with Retry-After)',
  504: 'The query ran longer than its time limit on the data source',
};

interface RouteDoc {
  summary: string;
  tags: string[];
  auth: AuthKind;
  description?: string;
  operationId?: string;
  /**
   * Responses by status: a schema (JSON) or a description and the content types of a body that
   * is not JSON (an image, a page), for a success or for an error answered as a page.
   */
  responses: Record<
    number,
    v.GenericSchema | { description: string; contentType: string | readonly string[] }
  >;
  /** Error statuses beyond those implied by auth (401) and validation (400), answered as the error envelope. */
  errors?: number[];
}

/**
 * A schema as the OpenAPI document describes it. The document is OpenAPI 3.1, whose schemas are
 * JSON Schema 2020-12: a tuple is `prefixItems` there (the converter's default, draft-07, writes
 * `items` as an array, which 3.1 refuses).
 */
export function documented(schema: v.GenericSchema) {
  return resolver(schema, { errorMode: 'ignore', options: { target: 'draft-2020-12' } });
}

/** Documents one route in the OpenAPI document from the same valibot schemas it answers with. */
export function doc(spec: RouteDoc): MiddlewareHandler {
  const responses: Record<string, unknown> = {};
  for (const [status, schema] of Object.entries(spec.responses)) {
    if ('contentType' in schema && 'description' in schema && !('kind' in schema)) {
      const types = typeof schema.contentType === 'string' ? [schema.contentType] : schema.contentType;
      responses[status] = {
        description: schema.description,
        content: Object.fromEntries(types.map((type) => [type, {}])),
      };
    } else {
      responses[status] = {
        description: 'Success',
        content: {
          'application/json': { schema: documented(schema as v.GenericSchema) },
        },
      };
    }
  }
  const errors = new Set(spec.errors ?? []);
  if (spec.auth !== 'none') errors.add(401);
  errors.add(400);
  // A status the route answers in its own way (a page) keeps that answer.
  for (const status of [...errors].sort()) {
    responses[String(status)] ??= { $ref: `#/components/responses/Error${status}` };
  }
  return describeRoute({
    summary: spec.summary,
    description: spec.description,
    tags: spec.tags,
    operationId: spec.operationId,
    security: SECURITY[spec.auth],
    responses: responses as never,
  });
}

/** The parts of the document no single route owns: schemes, shared error responses, decisions. */
export function documentation(decisions: readonly string[]) {
  const errorResponses: Record<string, unknown> = {};
  for (const [status, text] of Object.entries(ERROR_TEXT)) {
    errorResponses[`Error${status}`] = {
      description: text,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'edgeboard API',
      version: '1.0.0',
      description: describeDecisions(decisions),
    },
    // Relative: the paths are absolute on whichever host serves this document (a deployment's
    // own host answers the Cube REST API too).
    servers: [{ url: '/', description: 'The host that serves this document' }],
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Cube’s one scheme, for tokens and keys alike: a user access token (`Authorization: Bearer eb_at_…`) ' +
            'or an account API key (`Authorization: Bearer eb_ak_…`, acting as the account’s first admin within ' +
            'its deployment scope). The prefix tells them apart.',
        },
        apiKeyAuth: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            'An account API key in edgeboard’s own scheme, `Authorization: Api-Key eb_ak_…` (the same key ' +
            'works as `Bearer`).',
        },
        operatorAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'The operator secret ADMIN_TOKEN (provisioning only)',
        },
        sessionAuth: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'An embed session: `Authorization: Session <sessionId>`',
        },
        sessionQuery: { type: 'apiKey', in: 'query', name: 'session', description: 'An embed session id' },
        cubeApiToken: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description:
            'Cube’s REST API credential: `Authorization: <token>` (as Cube’s clients send it) or ' +
            '`Authorization: Bearer <token>`, where the token is a `cubeApiToken` from ' +
            '`POST /api/v1/deployments/{id}/token` or an embed token from `POST /api/v1/embed/session/token`.',
        },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error', 'code', 'requestId'],
          properties: {
            error: { type: 'string' },
            code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
            requestId: { type: 'string' },
            details: {
              type: 'array',
              items: {
                type: 'object',
                required: ['path', 'message'],
                properties: { path: { type: 'string' }, message: { type: 'string' } },
              },
            },
          },
        },
      },
      responses: errorResponses,
    },
  };
}

const INTRO = `edgeboard serves Cube Cloud's Platform API on Cloudflare Workers: deployments and their
data models, the workspace (folders, workbooks, reports), dashboards (drafts and published
versions), signed embedding, scheduled notifications, and Cube's REST API over each deployment's
data.

**Authentication.** Most routes take a user access token or an account API key as
\`Authorization: Bearer …\` (API keys also as \`Api-Key …\`); an API key acts as the account's
first admin within its deployments. Embed viewers use session ids (\`Authorization: Session …\`),
Cube's REST API takes its own tokens, and the operator's \`/admin/v1\` takes the operator secret.
Each operation names its scheme.

**Requests and errors.** JSON in and out; bodies are strict (an unknown field is a 400). Every
error is \`{error, code, requestId, details?}\`, where \`code\` is one of a closed set and
\`details\` lists each invalid field of a 400. Lists page with \`first\` (1–100, default 20) and
\`after\` (the previous page's \`pageInfo.endCursor\`). Every response carries \`x-request-id\`.

**Decisions.** Where Cube's documentation leaves a behaviour open, edgeboard's choice is listed
below (collapsed) and, by domain, in the repository's \`docs/decisions.md\`.`;

/** The info text of the document: the introduction, then every domain's decisions, folded away. */
function describeDecisions(decisions: readonly string[]): string {
  const list = decisions.map((d) => `- ${d}`).join('\n');
  return `${INTRO}\n\n<details>\n<summary>Decisions (${decisions.length})</summary>\n\n${list}\n\n</details>`;
}
