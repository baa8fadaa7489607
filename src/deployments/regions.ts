import type * as v from 'valibot';
import { DEFAULT_PAGE_SIZE, decodeCursor, encodeCursor } from '../core/pagination';
import { CLOUD_PROVIDERS, type CloudProvider, REGIONS, type regionSchema } from './deployments.schemas';

type Region = v.InferOutput<typeof regionSchema>;

const TITLES: Record<string, string> = {
  'us-east-1': 'US East (N. Virginia)',
  'us-west-2': 'US West (Oregon)',
  'eu-west-1': 'Europe (Ireland)',
  'eu-central-1': 'Europe (Frankfurt)',
  'ap-southeast-1': 'Asia Pacific (Singapore)',
  'ap-northeast-1': 'Asia Pacific (Tokyo)',
  'us-central1': 'US Central (Iowa)',
  'us-east1': 'US East (South Carolina)',
  'europe-west1': 'Europe West (Belgium)',
  'asia-southeast1': 'Asia Southeast (Singapore)',
};

/**
 * Cube's one item per region: ids are positions in the fixed catalogue (providers in their
 * order, regions in theirs), so they stay stable as long as regions are only ever appended.
 */
const CATALOGUE: readonly Region[] = CLOUD_PROVIDERS.flatMap((provider) =>
  REGIONS[provider].map((name, index) => ({ provider, name, isDefault: index === 0 })),
).map(({ provider, name, isDefault }, index) => ({
  id: index + 1,
  name,
  provider,
  title: TITLES[name] ?? name,
  isDedicated: false,
  isHybrid: false,
  isPublic: true,
  useAiEngineer: false,
  isDefault,
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
