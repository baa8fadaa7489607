import * as v from 'valibot';
import { boundedObject, idNumber, idString, nonEmptyString, obj } from '../core/validation';
import { createNotificationBody } from '../notifications/notifications.schemas';
import { MAX_FILENAME_STEM } from './exports.limits';

/**
 * Cube's StartDashboardExportInput, DashboardExportJobResponse and DashboardExportStatusResponse.
 * Filters, time grains and member switchers are "the same shape the scheduled-notification API
 * uses" (Cube's words), so they are the notification body's own schemas, bounds included.
 */
const { filters, timeGrains, memberSwitchers } = createNotificationBody.entries;

/** Cube's ExportSubjectInput: whom the render runs as (`USER` only: see the service). */
const renderAs = v.pipe(
  obj({
    type: v.picklist(['USER', 'EMBED_USER']),
    userId: v.nullish(idNumber),
    email: v.nullish(v.pipe(v.string(), v.trim(), v.maxLength(254), v.email('Expected an email address'))),
    embedTenantName: v.nullish(nonEmptyString(255)),
    externalId: v.nullish(nonEmptyString(255)),
    groups: v.nullish(v.pipe(v.array(nonEmptyString(100)), v.maxLength(100))),
    userAttributes: v.nullish(
      v.pipe(
        v.array(
          obj({
            name: nonEmptyString(100),
            value: v.nullish(v.union([v.pipe(v.string(), v.maxLength(4096)), v.number(), v.boolean()])),
          }),
        ),
        v.maxLength(100),
      ),
    ),
    securityContext: v.nullish(boundedObject({ maxDepth: 8, maxBytes: 16 * 1024 })),
  }),
  v.forward(
    v.check(
      (s) => s.type !== 'EMBED_USER',
      'EMBED_USER is not supported: an export renders as a user of the account',
    ),
    ['type'],
  ),
  v.forward(
    v.check(
      (s) =>
        s.embedTenantName == null &&
        s.externalId == null &&
        s.groups == null &&
        s.userAttributes == null &&
        s.securityContext == null,
      'embedTenantName, externalId, groups, userAttributes and securityContext are for EMBED_USER',
    ),
    ['type'],
  ),
  v.forward(
    v.check((s) => (s.userId == null) !== (s.email == null), 'Give exactly one of userId or email'),
    ['userId'],
  ),
);

export const startExportBody = obj({
  dashboardId: v.nullish(idNumber),
  dashboardPublicId: v.nullish(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
  format: v.picklist(['png', 'pdf']),
  filters,
  timeGrains,
  memberSwitchers,
  renderAs: v.nullish(renderAs),
});
export type StartExportInput = v.InferOutput<typeof startExportBody>;

export const exportsParams = v.object({ deploymentId: idString });
export const exportParams = v.object({ deploymentId: idString, jobId: v.pipe(v.string(), v.maxLength(64)) });

/**
 * The download's `filename`: a stem without extension (the format adds it), printable, with no
 * path separator or quote, so it goes into `Content-Disposition` as given.
 */
export const downloadQuery = obj({
  filename: v.optional(
    v.pipe(
      v.string(),
      v.minLength(1, 'Must not be empty'),
      v.maxLength(MAX_FILENAME_STEM),
      v.regex(/^[^\p{Cc}/\\"]+$/u, 'No control characters, slashes, backslashes or double quotes'),
      v.check((s) => s.trim() === s, 'Must be trimmed'),
    ),
  ),
});

/** The wire's status words, Cube's: `pending` and `processing` both mean keep polling. */
export const EXPORT_WIRE_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;

export const exportJobSchema = v.object({
  jobId: v.pipe(
    v.string(),
    v.description('Job id to poll for status and to download the finished file with.'),
  ),
  expiresAt: v.pipe(
    v.string(),
    v.description('When the job and its file are dropped (ISO 8601): download before this, or start again.'),
  ),
});

export const exportStatusSchema = v.object({
  jobId: v.string(),
  status: v.picklist(EXPORT_WIRE_STATUSES),
  format: v.picklist(['png', 'pdf']),
  /** Present once `status` is `completed`. */
  contentType: v.nullable(v.string()),
  /** Present only when `status` is `failed`. */
  error: v.nullable(v.string()),
  attempts: v.number(),
  createdAt: v.string(),
  expiresAt: v.string(),
});
export type ExportStatusAnswer = v.InferOutput<typeof exportStatusSchema>;
