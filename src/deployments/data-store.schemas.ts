import * as v from 'valibot';
import { idString, obj } from '../core/validation';
import { COLUMN_TYPES, type ColumnSpec, IDENTIFIER, MAX_IDENTIFIER_LENGTH } from '../sources/csv';

const identifier = v.pipe(
  v.string(),
  v.maxLength(MAX_IDENTIFIER_LENGTH),
  v.regex(IDENTIFIER, 'Must match ^[A-Za-z_][A-Za-z0-9_]*$'),
);

export const tableParams = v.object({ id: idString, table: identifier });

const TYPE_LIST = /^[A-Za-z_][A-Za-z0-9_]*:[a-z]+(,[A-Za-z_][A-Za-z0-9_]*:[a-z]+)*$/;

export const importQuery = obj({
  mode: v.optional(v.picklist(['replace', 'append']), 'replace'),
  types: v.optional(
    v.pipe(
      v.string(),
      v.maxLength(8192),
      v.regex(TYPE_LIST, 'Expected column:type pairs separated by commas'),
      v.transform((s) =>
        s.split(',').map((pair) => {
          const [name, type] = pair.split(':');
          return { name, type } as { name: string; type: string };
        }),
      ),
      v.check(
        (specs) => specs.every((s) => (COLUMN_TYPES as readonly string[]).includes(s.type)),
        `Each type is one of ${COLUMN_TYPES.join(', ')}`,
      ),
      v.transform((specs) => specs as ColumnSpec[]),
      v.description(
        'Types of some columns, as `name:type` pairs separated by commas (`amount:real,zip:text`); the others are inferred.',
      ),
    ),
  ),
});

const columnSchema = v.object({ name: v.string(), type: v.picklist(COLUMN_TYPES) });

export const importResultSchema = v.object({
  table: v.string(),
  rowsImported: v.number(),
  rowCount: v.number(),
});

const indexSchema = v.pipe(
  v.object({ columns: v.array(v.string()), instant: v.boolean() }),
  v.description(
    'An index the store keeps for the deployment’s model: the columns a join compares, or (`instant`) the instant of a time dimension’s column, which date ranges search.',
  ),
);

export const tableSchema = v.object({
  name: v.string(),
  columns: v.array(columnSchema),
  rowCount: v.number(),
  indexes: v.array(indexSchema),
});

export const tablesListSchema = v.object({ items: v.array(tableSchema) });

export const tableDeletedSchema = v.object({ name: v.string(), deleted: v.literal(true) });
