import * as v from 'valibot';
import { pageInfoSchema, pageQueryEntries } from '../core/pagination';
import { obj } from '../core/validation';

/** Bounds of a deployment's env vars. */
export const ENV_VAR_LIMITS = {
  /** Variables one deployment holds. */
  maxVariables: 100,
  /** Entries of one PUT. */
  maxPerRequest: 100,
  maxNameLength: 128,
  /** Bytes of a value, in UTF-8. */
  maxValueBytes: 4096,
} as const;

/** What a secret-named variable's value reads as: its value is never answered. */
export const ENCRYPTED = '[ENCRYPTED]';

/** Cube's rule for new names. */
export const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Names whose values are secrets, stored encrypted and read back as `[ENCRYPTED]` (Cube's list). */
export const isSecretName = (name: string) => /PASS|SECRET|TOKEN|KEY|CREDENTIAL/i.test(name);

const utf8Length = (s: string) => new TextEncoder().encode(s).length;

export const envVariableItem = v.object({ name: v.string(), value: v.string() });

const envVariableInput = obj({
  name: v.pipe(
    v.string(),
    v.minLength(1, 'Must not be empty'),
    v.maxLength(ENV_VAR_LIMITS.maxNameLength),
    v.regex(ENV_VAR_NAME, 'Must match ^[A-Za-z_][A-Za-z0-9_]*$'),
  ),
  value: v.pipe(
    v.string(),
    v.check(
      (s) => utf8Length(s) <= ENV_VAR_LIMITS.maxValueBytes,
      `At most ${ENV_VAR_LIMITS.maxValueBytes} bytes`,
    ),
    v.check((s) => s !== ENCRYPTED, `${ENCRYPTED} is what a secret reads as; send the value itself`),
  ),
});

/** Cube's `SetEnvVariablesInput`. */
export const setEnvVariablesBody = obj({
  env_variables: v.pipe(
    v.array(envVariableInput),
    v.maxLength(ENV_VAR_LIMITS.maxPerRequest),
    v.check((items) => new Set(items.map((i) => i.name)).size === items.length, 'Each name may appear once'),
  ),
});

export const envVariablesQuery = obj(pageQueryEntries);

/** Cube's `EnvVariablesListResponse`. */
export const envVariablesListSchema = v.object({
  items: v.array(envVariableItem),
  data: v.pipe(v.array(envVariableItem), v.description('Cube’s deprecated name of `items` (same items).')),
  pageInfo: pageInfoSchema,
});
