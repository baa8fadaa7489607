/** Decisions about signed embedding (E8–E14), recorded in the OpenAPI document. */
export const EMBEDDING_DECISIONS = [
  // generate-session (E9)
  'generate-session answers 200 `{sessionId, expiresAt}`. It validates the body before looking up the API key (the lookup shares its one D1 read batch); a missing Authorization header or a scheme other than `Api-Key` is a 401 before the body is read.',
  '`externalId` is 1–255 characters; capitals or surrounding spaces are a 400, never rewritten. An external user is identified by (tenant, externalId): the same externalId in two tenants is two users, and both count toward `externalUserLimit`.',
  "Internal users (`internalId`) do not count toward `externalUserLimit` and carry no groups, attributes or security context; their viewer is the user's firstName and picture.",
  '`userProfile.displayName` (≤ 255) and `userProfile.picture` accept null, which clears the stored value. `email` and `securityContext` are stored on the external user like the profile: sent replaces, omitted keeps, `securityContext: null` clears.',
  "Duplicate names in `groups` collapse (a set). Memberships and attribute values belong to a catalogue: a creator-mode session replaces and reads those of its tenant's catalogue, any other session those of the account-wide catalogue.",
  'In `groupDefinitions` an empty description counts as not supplied (a description is never cleared there); in `userAttributeDefinitions` a supplied `displayName`, `defaultValue` or `description` (even empty) replaces the stored one when different.',
  "Failures: `cannot change type` is a 409 (`CONFLICT`) whose details name each definition; `User attributes not found` and `Groups with names … not found` are 400 (`BAD_REQUEST`); a value of the wrong type is a 400 (`VALIDATION_FAILED`) naming `userAttributes.<i>.value`. A new external user past the limit is a 429 `QUOTA_EXCEEDED`; the per-key rate limit (Rate Limiting binding, keyed by the key's SHA-256) a 429 `RATE_LIMITED`.",
  'Sizes: at most 500 groups, 200 userAttributes (together ≤ 64 KiB of JSON), 500 groupDefinitions and 200 userAttributeDefinitions per request; attribute string values ≤ 1,024 characters, arrays ≤ 100 items; `defaultValue` ≤ 1,024 characters; `securityContext` ≤ 8 levels and 16 KiB of JSON. A session therefore carries at most 500 groups and its KV value stays far below 25 MiB.',
  '`externalUserLimit` is checked against `accounts.external_user_count`, a counter kept by triggers on `embed_users` (every insert and delete, cascades included), so the check costs one row whatever the account size and holds across generate-session and notification recipients.',
  "A catalogue (account-wide or a tenant's) holds at most 200 user attributes, so a session carries at most 200 attribute values: a create past it is a 409, and so is a mint whose definitions would pass it (nothing written).",
  'Every 429 carries `Retry-After`: 10 s for `RATE_LIMITED` (the limiter period), 3600 s for `QUOTA_EXCEEDED` (waiting does not free a full quota).',
  // Sessions
  'A sessionId is a compact HS256 JWS (header `kid` names the signing key). Rotation: set the old secret as `SESSION_SIGNING_KEY_PREVIOUS` and a new `SESSION_SIGNING_KEY`; sessions of the previous key keep verifying until they expire.',
  'A session keeps the profile, groups, attributes and security context of its user as they were at minting (held in KV); later changes apply to sessions minted afterwards. A session rebuilt after a KV miss reads the current state. Deleting the minting API key or changing the plan does not end live sessions; revocation and expiry do.',
  'Revoke answers `{revoked: false}` when the session was already revoked or has expired; a sessionId that does not verify or belongs to another account is a 404; a scoped key may revoke only sessions of its deployments (403 `KEY_SCOPE`).',
  // Loads and E8
  'The embed dashboard load takes `Authorization: Session <id>` first, else `?session=`; another Authorization scheme is a 401. It answers the PublishedDashboard fields plus `viewer` and the effective `settings`, never groups, attributes, email or the security context.',
  '`viewer.initials`: the first letters of the first and last words of displayName, else of the externalId or username (for an email address, of its local part); `picture` is passed through for the browser to load, null when unset.',
  'E8 takes `allowEmbed`, `allEmbedUsers` or both (at least one); an omitted flag keeps its value. There is no per-group sharing, so `allEmbedUsers` only matters while `allowEmbed` is false.',
  // Catalogues and tenants (E10–E14)
  'The account-wide catalogue (`/api/v1/groups`, `/api/v1/user-attributes`) and E10–E14 take an admin Bearer token or any API key of the account. A deployment-scoped key reads the account-wide catalogue but gets 403 `KEY_SCOPE` on its writes (it rules row-level security in every deployment); tenant catalogues (E10–E14) are not deployment-bound and accept any key of the account.',
  'E10 creates the embed tenant when it does not exist yet, so groups can be prepared before a first session; listing, updating or deleting in an unknown tenant is a 404.',
  'Group PATCH (account-wide and E12) also takes `name` (1–100 characters, unique in its catalogue, else 409); at least one of `name`, `description` is required.',
  'Embed tenants are listed as `{id, name, createdAt}`; lists of groups, attributes and tenants are ordered by id (creation order).',
];
