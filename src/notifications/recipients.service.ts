import type { RecipientType } from '../../schema/notifications';
import {
  ApiError,
  type ErrorDetail,
  notFound,
  QUOTA_RETRY_AFTER_SECONDS,
  tooManyRequests,
} from '../core/errors';
import { idCursor, type PageRequest, toPage } from '../core/pagination';
import type { DeploymentScope } from '../core/scope';
import { DEFAULT_TENANT } from '../embedding/embedding.schemas';
import { MAX_RECIPIENTS_PER_NOTIFICATION } from './notifications.limits';
import {
  EMAIL_SHAPED,
  type RecipientInput,
  type RecipientView,
  type RemoveRecipientInput,
} from './notifications.schemas';
import * as repo from './recipients.repository';

function presentRecipient(row: repo.RecipientRow): RecipientView {
  return {
    id: row.id,
    type: row.type,
    userId: row.userId,
    username: row.username,
    email: row.email,
    embedUserId: row.embedUserId,
    externalId: row.externalId,
    embedTenantName: row.embedTenantName,
    groups: row.groups,
    userAttributes: row.userAttributes,
    securityContext: row.securityContext === null ? null : JSON.parse(row.securityContext),
    channelId: row.channelId,
    channelName: row.channelName,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

const invalid = (details: ErrorDetail[]) => {
  const first = details[0] as ErrorDetail;
  return new ApiError('VALIDATION_FAILED', `Invalid recipient: ${first.path} ${first.message}`, details);
};

/** The identity a recipient names, before it is resolved against users and embed users. */
type Named =
  | { kind: 'user'; userId: number }
  | { kind: 'email'; email: string }
  | { kind: 'embed'; tenant: string; externalId: string }
  | { kind: 'channel'; channelId: string };

const TYPE_OF: Record<Named['kind'], RecipientType> = {
  user: 'USER',
  email: 'USER',
  embed: 'EMBED_USER',
  channel: 'SLACK',
};

/** Checks one item's shape; every problem is a detail under `recipients.<i>`. */
function nameRecipient(item: RecipientInput, path: string, details: ErrorDetail[]): Named | null {
  const embed = item.externalId !== undefined;
  const identities = [
    item.userId !== undefined,
    // With externalId, an email is the embed user's address, not an identity of its own.
    item.email !== undefined && !embed,
    embed,
    item.channelId !== undefined,
  ].filter(Boolean).length;
  const before = details.length;
  if (identities !== 1) {
    details.push({
      path,
      message: 'Give exactly one of userId, email, externalId (with embedTenantName) or channelId',
    });
    return null;
  }
  if (!embed) {
    for (const field of ['embedTenantName', 'groups', 'userAttributes', 'securityContext'] as const) {
      if (item[field] !== undefined)
        details.push({ path: `${path}.${field}`, message: 'Only with externalId' });
    }
  }
  if (item.channelName !== undefined && item.channelId === undefined) {
    details.push({ path: `${path}.channelName`, message: 'Only with channelId' });
  }
  const names = item.userAttributes?.map((a) => a.name) ?? [];
  if (new Set(names).size !== names.length) {
    details.push({ path: `${path}.userAttributes`, message: 'Duplicate attribute names' });
  }
  let named: Named;
  if (item.userId !== undefined) named = { kind: 'user', userId: item.userId };
  else if (embed) {
    named = {
      kind: 'embed',
      tenant: item.embedTenantName ?? DEFAULT_TENANT,
      externalId: item.externalId as string,
    };
  } else if (item.channelId !== undefined) named = { kind: 'channel', channelId: item.channelId };
  else named = { kind: 'email', email: (item.email as string).toLowerCase() };
  if (item.type !== undefined && item.type !== TYPE_OF[named.kind]) {
    details.push({ path: `${path}.type`, message: `Expected ${TYPE_OF[named.kind]} for this recipient` });
  }
  return details.length === before ? named : null;
}

const sortedJson = <T>(list: T[] | undefined, key: (x: T) => string): string | null =>
  list === undefined
    ? null
    : JSON.stringify([...list].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)));

/** Does writing `w` change the stored row? Omitted properties keep their stored values. */
function changes(w: repo.RecipientWrite, stored: repo.RecipientRow): boolean {
  const differs = (given: string | null, current: string | null) => given !== null && given !== current;
  return (
    (w.type === 'EMBED_USER' && differs(w.email, stored.email)) ||
    differs(w.channelName, stored.channelName) ||
    differs(w.groups, stored.groups === null ? null : JSON.stringify(stored.groups)) ||
    differs(
      w.userAttributes,
      stored.userAttributes === null ? null : JSON.stringify(stored.userAttributes),
    ) ||
    differs(w.securityContext, stored.securityContext)
  );
}

/**
 * Adds or updates recipients. Every recipient is checked and resolved before anything is written; one that cannot
 * be resolved is a 400 naming it. Then one batch writes them all (see writeRecipients), and
 * each is sorted into created, updated or unchanged by comparison with what was stored.
 */
export async function addRecipients(scope: DeploymentScope, notificationId: number, items: RecipientInput[]) {
  const details: ErrorDetail[] = [];
  const named = items.map((item, i) => nameRecipient(item, `recipients.${i}`, details));
  const userIds = named.flatMap((n) => (n?.kind === 'user' ? [n.userId] : []));
  const emails = named.flatMap((n) => (n?.kind === 'email' ? [n.email] : []));
  const embedNames = named.flatMap((n) =>
    n?.kind === 'embed' ? [{ tenant: n.tenant, externalId: n.externalId }] : [],
  );
  const provisionalKeys = named.flatMap((n) => {
    if (!n) return [];
    if (n.kind === 'user') return [`user:${n.userId}`];
    if (n.kind === 'email') return [`email:${n.email}`];
    if (n.kind === 'embed') return [`embed:${n.tenant}/${n.externalId}`];
    return [`channel:${n.channelId}`];
  });
  const state = await repo.readRecipientState(scope, notificationId, {
    userIds,
    emails,
    embedUsers: embedNames,
    keys: provisionalKeys,
  });
  if (!state.notificationFound) throw notFound('Notification');
  if (details.length > 0) throw invalid(details);

  const usersById = new Map(state.users.map((u) => [u.id, u]));
  const usersByEmail = new Map(state.users.map((u) => [u.email.toLowerCase(), u]));
  const embedUsers = new Map(state.embedUsers.map((u) => [`${u.tenant}/${u.externalId}`, u]));
  const existing = new Map(state.existing.map((r) => [r.recipientKey, r]));
  const writes: repo.RecipientWrite[] = [];
  const seen = new Map<string, number>();
  let newExternalUsers = 0;

  items.forEach((item, i) => {
    const n = named[i] as Named;
    const path = `recipients.${i}`;
    const w: repo.RecipientWrite = {
      key: '',
      type: TYPE_OF[n.kind],
      userId: null,
      email: null,
      tenant: null,
      externalId: null,
      channelId: null,
      channelName: null,
      groups: null,
      userAttributes: null,
      securityContext: null,
    };
    if (n.kind === 'user') {
      if (!usersById.has(n.userId)) {
        details.push({ path: `${path}.userId`, message: `User ${n.userId} not found` });
        return;
      }
      w.key = `user:${n.userId}`;
      w.userId = n.userId;
    } else if (n.kind === 'email') {
      // An address of one of the account's users is that user.
      const user = usersByEmail.get(n.email);
      w.key = user ? `user:${user.id}` : `email:${n.email}`;
      w.userId = user?.id ?? null;
      w.email = user ? null : n.email;
    } else if (n.kind === 'embed') {
      const known = embedUsers.get(`${n.tenant}/${n.externalId}`);
      w.key = `embed:${n.tenant}/${n.externalId}`;
      w.tenant = n.tenant;
      w.externalId = n.externalId;
      // Cube delivers to an email-shaped externalId when the recipient gives no address.
      w.email = item.email?.toLowerCase() ?? (EMAIL_SHAPED.test(n.externalId) ? n.externalId : null);
      w.groups = item.groups === undefined ? null : sortedJson([...new Set(item.groups)], (g) => g);
      w.userAttributes = sortedJson(item.userAttributes, (a) => a.name);
      w.securityContext = item.securityContext === undefined ? null : JSON.stringify(item.securityContext);
      const stored = existing.get(w.key);
      if (!w.email && !known?.email && !stored?.email) {
        details.push({
          path: `${path}.email`,
          message: 'An embed recipient needs an email address to deliver to',
        });
        return;
      }
      if (!known && !seen.has(w.key)) newExternalUsers += 1;
    } else {
      w.key = `channel:${n.channelId}`;
      w.channelId = n.channelId;
      w.channelName = item.channelName ?? null;
    }
    const duplicate = seen.get(w.key);
    if (duplicate !== undefined) {
      details.push({ path, message: `Names the same recipient as recipients.${duplicate}` });
      return;
    }
    seen.set(w.key, i);
    writes.push(w);
  });
  if (details.length > 0) throw invalid(details);
  if (state.externalUserCount + newExternalUsers > state.externalUserLimit) {
    throw quotaExceeded(state.externalUserLimit);
  }

  const written = await repo.writeRecipients(scope, notificationId, writes, MAX_RECIPIENTS_PER_NOTIFICATION);
  if (!written.ok) {
    if (written.refused === 'recipient_limit') throw recipientLimitExceeded();
    throw quotaExceeded(state.externalUserLimit);
  }
  const byKey = new Map(written.rows.map((r) => [r.recipientKey, r]));
  const result = { createdRecipients: [], updatedRecipients: [], unchangedRecipients: [] } as Record<
    'createdRecipients' | 'updatedRecipients' | 'unchangedRecipients',
    RecipientView[]
  >;
  for (const w of writes) {
    const row = byKey.get(w.key);
    if (!row) continue;
    const stored = existing.get(w.key);
    const bucket = !stored
      ? 'createdRecipients'
      : changes(w, stored)
        ? 'updatedRecipients'
        : 'unchangedRecipients';
    result[bucket].push(presentRecipient(row));
  }
  return result;
}

function recipientLimitExceeded() {
  return new ApiError(
    'CONFLICT',
    `A notification has at most ${MAX_RECIPIENTS_PER_NOTIFICATION} recipients: remove some before adding these`,
    [
      {
        path: 'recipients',
        message: `At most ${MAX_RECIPIENTS_PER_NOTIFICATION} recipients per notification`,
      },
    ],
  );
}

function quotaExceeded(limit: number) {
  return tooManyRequests(
    'QUOTA_EXCEEDED',
    `These recipients would take the account past its limit of ${limit} external users`,
    QUOTA_RETRY_AFTER_SECONDS,
  );
}

export async function listRecipients(scope: DeploymentScope, notificationId: number, request: PageRequest) {
  const { notificationFound, rows } = await repo.listRecipients(scope, notificationId, idCursor(request));
  if (!notificationFound) throw notFound('Notification');
  return toPage(rows, request, 'recipients', (r) => [r.id], presentRecipient);
}

export async function deleteRecipient(scope: DeploymentScope, notificationId: number, recipientId: number) {
  const deleted = await repo.deleteRecipient(scope, notificationId, recipientId);
  if (!deleted) throw notFound('Recipient');
  return { id: recipientId, deleted: true as const };
}

/**
 * Cube's `DELETE …/recipients`: each entry names a subscriber the way Cube does (`id` the user id,
 * the embed user id within `embedTenantName`, or the channel id), not edgeboard's recipient row
 * id. A string `id` also names a USER by email or an EMBED_USER by externalId. Idempotent: an
 * entry that is not subscribed is skipped.
 */
export async function removeRecipients(
  scope: DeploymentScope,
  notificationId: number,
  items: RemoveRecipientInput[],
) {
  const keys: string[] = [];
  const embedUserIds: { id: number; tenant: string }[] = [];
  for (const item of items) {
    const id = String(item.id);
    const numeric = /^[1-9]\d{0,15}$/.test(id);
    if (item.type === 'USER') keys.push(numeric ? `user:${id}` : `email:${id.toLowerCase()}`);
    else if (item.type === 'SLACK') keys.push(`channel:${id}`);
    else {
      const tenant = item.embedTenantName as string;
      if (numeric) embedUserIds.push({ id: Number(id), tenant });
      else keys.push(`embed:${tenant}/${EMAIL_SHAPED.test(id) ? id.toLowerCase() : id}`);
    }
  }
  const result = await repo.removeRecipients(scope, notificationId, keys, embedUserIds);
  if (!result.notificationFound) throw notFound('Notification');
  return { id: notificationId, deleted: true as const, removedCount: result.removed };
}
