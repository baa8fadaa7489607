import type * as v from 'valibot';
import { DEFAULT_PAGE_SIZE, decodeCursor, encodeCursor } from '../core/pagination';
import { type CloudProvider, REGION_ENTRIES, REGIONS, type regionSchema } from './deployments.schemas';

type Region = v.InferOutput<typeof regionSchema>;

const CATALOGUE: readonly Region[] = REGION_ENTRIES.map(([id, provider, name, title]) => ({
  id,
  name,
  provider,
  title,
  isDedicated: false,
  isHybrid: false,
  isPublic: true,
  useAiEngineer: false,
  isDefault: REGIONS[provider][0] === name,
}));

const TAG = 'regions';

/** A page of the region catalogue, of one provider or all of them. */
export function listRegions(query: { cloudProvider?: CloudProvider; first?: number; after?: string }) {
  const afterId = query.after ? Number(decodeCursor(TAG, query.after, 1)[0]) : 0;
  const limit = query.first ?? DEFAULT_PAGE_SIZE;
  const matching = CATALOGUE.filter(
    (r) => (!query.cloudProvider || r.provider === query.cloudProvider) && r.id > afterId,
  );
  const items = matching.slice(0, limit);
  const first = items[0];
  const last = items[items.length - 1];
  return {
    items,
    data: items,
    pageInfo: {
      hasNextPage: matching.length > limit,
      hasPreviousPage: query.after !== undefined,
      startCursor: first ? encodeCursor(TAG, [first.id]) : null,
      endCursor: last ? encodeCursor(TAG, [last.id]) : null,
    },
  };
}
