import type { ModelFile } from './model.types';

/**
 * The model a new deployment starts with: one cube over a literal row, so it compiles and
 * answers without any table, and comments that show the format to copy from.
 */
export const STARTER_MODEL: ModelFile[] = [
  {
    path: 'model/cubes/example.yml',
    content: `# A data model in Cube's YAML format. Every file under model/ ending .yml or .yaml may hold
# a "cubes:" list and a "views:" list. Replace this example with cubes over your own tables.
cubes:
  - name: example
    # A cube reads a table (sql_table: public.orders) or a query (sql: SELECT ...).
    sql: SELECT 1 AS id, 'hello' AS label, CURRENT_DATE AS created_at
    # Cached results are refreshed this often.
    refresh_key:
      every: 1 hour

    # Members reference columns through {CUBE}, the cube's alias, and other members
    # through {member} or {other_cube.member}.
    dimensions:
      - name: id
        sql: "{CUBE}.id"
        type: number
        primary_key: true
      - name: label
        sql: "{CUBE}.label"
        type: string
      - name: created_at
        sql: "{CUBE}.created_at"
        type: time

    measures:
      - name: count
        type: count
      - name: id_total
        sql: "{id}"
        type: sum
        title: Sum of ids

    # Joins name the other cube and say how rows relate:
    # joins:
    #   - name: users
    #     sql: "{CUBE}.user_id = {users.id}"
    #     relationship: many_to_one

    # Access policies decide who sees which rows and members:
    # access_policy:
    #   - group: "*"
    #     row_level:
    #       filters:
    #         - member: label
    #           operator: equals
    #           values: ["{ securityContext.label }"]

# Views expose members of joined cubes under one name:
# views:
#   - name: example_view
#     cubes:
#       - join_path: example
#         includes: "*"
`,
  },
];
