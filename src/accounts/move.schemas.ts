import * as v from 'valibot';
import { MOVE_STATES } from '../../schema/control';
import { obj } from '../core/validation';

/** `POST /admin/v1/accounts/{id}/move`: the shard the account goes to. */
export const moveAccountBody = obj({
  shard: v.pipe(
    v.number(),
    v.integer('Expected an integer'),
    v.minValue(0),
    v.description('The shard to move the account to: its position in SHARD_BINDINGS (0 is `DB`).'),
  ),
});

const tableCounts = v.object({
  table: v.string(),
  copied: v.pipe(v.number(), v.description('Rows copied to the target (a page copied twice counts twice).')),
  source: v.optional(v.pipe(v.number(), v.description('Rows on the source when the table was verified.'))),
  target: v.optional(v.pipe(v.number(), v.description('Rows on the target when the table was verified.'))),
  deleted: v.optional(v.pipe(v.number(), v.description('Rows deleted from the source after the switch.'))),
});

/** A move of an account to another shard, as the operator follows it. */
export const moveSchema = v.object({
  id: v.number(),
  accountId: v.number(),
  fromShard: v.number(),
  toShard: v.number(),
  state: v.pipe(
    v.picklist(MOVE_STATES),
    v.description(
      'freezing: writes refused, waiting for background work in flight; copying; verifying; switching; ' +
        'cleaning: the account lives on toShard, its rows leave fromShard; done; failed: fromShard unfrozen ' +
        'and untouched, the copied rows removed (finishedAt set once they are).',
    ),
  ),
  tables: v.pipe(v.array(tableCounts), v.description('The rows of each account table, in copying order.')),
  error: v.nullable(v.string()),
  createdAt: v.string(),
  updatedAt: v.string(),
  finishedAt: v.nullable(v.string()),
});

export type MoveView = v.InferOutput<typeof moveSchema>;
