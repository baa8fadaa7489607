import type * as v from 'valibot';
import { afterId, idPage, pageRequest } from '../core/pagination';
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

/** A page of the region catalogue, of one provider or all of them (Cube's legacy `data` repeats the items). */
export function listRegions(query: { cloudProvider?: CloudProvider; first?: number; after?: string }) {
  const request = pageRequest(query, TAG, 1);
  const after = afterId(request) ?? 0;
  const matching = CATALOGUE.filter(
    (r) => (!query.cloudProvider || r.provider === query.cloudProvider) && r.id > after,
  );
  const page = idPage(matching.slice(0, request.limit + 1), request, TAG);
  return { ...page, data: page.items };
}
