import * as v from 'valibot';
import { obj } from '../core/validation';

export const EMBED_ACCESS_ACTIONS = ['read', 'none'] as const;

/** Cube's UpdateEmbedAccessInput. */
export const updateEmbedAccessBody = obj({
  action: v.nullish(v.picklist(EMBED_ACCESS_ACTIONS)),
  allEmbedUsers: v.nullish(v.boolean()),
  allowEmbed: v.nullish(v.boolean()),
  embedTenantName: v.nullish(v.pipe(v.string(), v.minLength(1), v.maxLength(255))),
});
export type UpdateEmbedAccessInput = v.InferOutput<typeof updateEmbedAccessBody>;

/** Cube's EmbedAccessResponse. */
export const embedAccessSchema = v.object({
  allowEmbed: v.boolean(),
  allEmbedUsers: v.object({
    enabled: v.boolean(),
    action: v.picklist(EMBED_ACCESS_ACTIONS),
    groupId: v.nullable(v.number()),
  }),
  tenants: v.array(
    v.object({
      embedTenantName: v.string(),
      groupId: v.number(),
      action: v.picklist(EMBED_ACCESS_ACTIONS),
    }),
  ),
});
export type EmbedAccess = v.InferOutput<typeof embedAccessSchema>;
