import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { users } from './accounts';
import { embedAttributes } from './embedding';

/**
 * The values the account's own users (internal users, table `users`) hold for the attributes of
 * the account-wide catalogue (`embed_attributes` with no tenant), one row per (user, attribute),
 * set through Cube's upsertUserAttributeValue. Wherever an account user's queries run (the render
 * endpoint, exports, notifications, internal embed sessions), the data access policies read them
 * as `{ userAttributes.<name> }`. A cleared value has no row; deleting the user or the attribute
 * deletes its values.
 */
export const userAttributeValues = sqliteTable(
  'user_attribute_values',
  {
    userId: integer()
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    attributeId: integer()
      .notNull()
      .references(() => embedAttributes.id, { onDelete: 'cascade' }),
    /** JSON text of the value (string, number, boolean or array), as embed users' values are stored. */
    value: text().notNull(),
    updatedAt: text().notNull(),
  },
  (t) => [
    // A user's values are read by the key's prefix; the attribute's (FK child) through the index.
    primaryKey({ columns: [t.userId, t.attributeId] }),
    index('user_attribute_values_attribute_idx').on(t.attributeId),
  ],
);
