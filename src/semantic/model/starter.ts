import type { ModelFile } from './model.types';

/** Placeholder until the model compiler lands: the example model of a new deployment. */
export const STARTER_MODEL: ModelFile = {
  path: 'model/cubes/orders.yml',
  content: 'cubes:\n  - name: orders\n    sql_table: orders\n',
};
