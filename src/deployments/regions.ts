import type * as v from 'valibot';
import { DEFAULT_PAGE_SIZE, decodeCursor, encodeCursor } from '../core/pagination';
import { type CloudProvider, REGIONS, type regionSchema } from './deployments.schemas';

type Region = v.InferOutput<typeof regionSchema>;

/**
 * Cube's one item per region, with a fixed id per provider and region: a new region gets a new
 * id, so ids never move. The names are REGIONS' (what `region` takes on create).
 */
const ENTRIES: readonly (readonly [id: number, provider: CloudProvider, name: string, title: string])[] = [
  [1, 'hosted', 'us-east-1', 'US East (N. Virginia)'],
  [2, 'hosted', 'eu-central-1', 'Europe (Frankfurt)'],
  [3, 'hosted', 'ap-southeast-1', 'Asia Pacific (Singapore)'],
  [4, 'aws', 'us-east-1', 'US East (N. Virginia)'],
  [5, 'aws', 'us-west-2', 'US West (Oregon)'],
  [6, 'aws', 'eu-west-1', 'Europe (Ireland)'],
  [7, 'aws', 'eu-central-1', 'Europe (Frankfurt)'],
  [8, 'aws', 'ap-southeast-1', 'Asia Pacific (Singapore)'],
  [9, 'aws', 'ap-northeast-1', 'Asia Pacific (Tokyo)'],
  [10, 'gcp', 'us-central1', 'US Central (Iowa)'],
  [11, 'gcp', 'us-east1', 'US East (South Carolina)'],
  [12, 'gcp', 'europe-west1', 'Europe West (Belgium)'],
  [13, 'gcp', 'asia-southeast1', 'Asia Southeast (Singapore)'],
];

const CATALOGUE: readonly Region[] = ENTRIES.map(([id, provider, name, title]) => ({
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
