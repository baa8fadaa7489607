declare const made: unique symbol;

/**
 * A JSON route's answer already written as JSON text, sent as it is: for answers assembled from
 * JSON text a cache stored (never parsed only to be written again). `T` is the answer it must be
 * the JSON of: the caller vouches for that, as the route's answer schema describes it.
 */
export class JsonText<T> {
  /** Never set: it ties the text to the answer type `T` for the route's handler type. */
  declare readonly answer?: T;
  /** Makes the type nominal: only `jsonText` makes one, never an object that merely has `text`. */
  declare readonly [made]: true;

  constructor(readonly text: string) {}
}

/** `text` as the JSON of a route's answer of type `T` (see `JsonText`). */
export const jsonText = <T>(text: string): JsonText<T> => new JsonText<T>(text);
