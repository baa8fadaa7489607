import {
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseDocument,
  type YAMLMap,
} from 'yaml';
import type { ModelError, ModelFile, SourcePosition } from './model.types';

/** More errors than this help nobody: the first ones are fixed first anyway. */
export const MAX_ERRORS = 50;

/** Collects errors up to `MAX_ERRORS`; the compiler keeps going after each one. */
export class ErrorList {
  readonly errors: ModelError[] = [];

  add(message: string, position: SourcePosition | null): void {
    if (this.errors.length >= MAX_ERRORS) return;
    this.errors.push({
      message,
      file: position?.file ?? null,
      line: position?.line ?? null,
      column: position?.column ?? null,
    });
  }

  get count(): number {
    return this.errors.length;
  }
}

/** The keys a mapping may hold, and the keys Cube knows that this compiler refuses by name. */
export interface KeySpec {
  allowed: readonly string[];
  unsupported?: readonly string[];
}

/**
 * One parsed YAML file with positioned access to its nodes: every value read through it can name
 * the line and column it came from, and every complaint lands in the shared `ErrorList`.
 */
export class YamlFile {
  private constructor(
    readonly path: string,
    private readonly source: string,
    private readonly doc: Document.Parsed,
    private readonly lines: LineCounter,
    readonly errors: ErrorList,
  ) {}

  /** Parses `file`; on a syntax error reports every error the parser found and answers null. */
  static parse(file: ModelFile, errors: ErrorList): YamlFile | null {
    const lines = new LineCounter();
    const doc = parseDocument(file.content, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
    if (doc.errors.length > 0) {
      for (const error of doc.errors) {
        const { line, col } = lines.linePos(error.pos[0]);
        errors.add(`YAML syntax error: ${error.message}`, { file: file.path, line, column: col });
      }
      return null;
    }
    return new YamlFile(file.path, file.content, doc, lines, errors);
  }

  /** The document's top-level node (null for an empty file). */
  get root(): Node | null {
    return this.resolve(this.doc.contents);
  }

  position(node: Node | null | undefined): SourcePosition {
    return this.positionAt(node?.range?.[0] ?? 0);
  }

  positionAt(offset: number): SourcePosition {
    const { line, col } = this.lines.linePos(offset);
    return { file: this.path, line, column: col };
  }

  error(node: Node | null | undefined, message: string): void {
    this.errors.add(message, this.position(node));
  }

  /**
   * Where `needle` (text of a scalar's value, such as a `{reference}`) stands in the source: the
   * `occurrence`-th time it appears inside the node's source text, else the node itself. Exact for
   * the plain, quoted and block scalars SQL is written in, as long as the needle holds no line break.
   */
  positionWithin(node: Node, needle: string, occurrence: number): SourcePosition {
    const [start, end] = node.range ?? [0, 0];
    const text = this.source.slice(start, end);
    let at = -1;
    for (let seen = 0; seen <= occurrence; seen++) {
      at = text.indexOf(needle, at + 1);
      if (at < 0) return this.position(node);
    }
    return this.positionAt(start + at);
  }

  /** Follows an alias (`*anchor`) to the node it names. */
  resolve(node: unknown): Node | null {
    if (isAlias(node)) return (node.resolve(this.doc) as Node | undefined) ?? null;
    if (isMap(node) || isSeq(node) || isScalar(node)) return node;
    return null;
  }

  /**
   * Reads `node` as a mapping whose keys must be among `keys`; a key Cube knows but this compiler
   * does not support, and a key nobody knows, are errors (Cube too rejects unknown keys).
   */
  mapping(node: Node | null, what: string, keys: KeySpec): Fields | null {
    const map = this.resolve(node);
    if (!isMap(map)) {
      this.error(node, `${what} must be a mapping`);
      return null;
    }
    const entries = new Map<string, { key: Node; value: Node | null }>();
    for (const pair of map.items) {
      const key = this.resolve(pair.key);
      if (!isScalar(key) || typeof key.value !== 'string') {
        this.error(key ?? map, `${what}: keys must be strings`);
        continue;
      }
      const name = key.value;
      if (keys.unsupported?.includes(name)) {
        this.error(key, `${what}: ${name} is not supported`);
      } else if (!keys.allowed.includes(name)) {
        this.error(key, `${what}: unknown key "${name}" (expected one of: ${keys.allowed.join(', ')})`);
      } else {
        entries.set(name, { key, value: this.resolve(pair.value) });
      }
    }
    return new Fields(this, map, what, entries);
  }

  /** Reads `node` as a list; null (with an error) otherwise. */
  sequence(node: Node | null, what: string): Node[] | null {
    const seq = this.resolve(node);
    if (!isSeq(seq)) {
      this.error(node, `${what} must be a list`);
      return null;
    }
    return seq.items.map((item) => this.resolve(item)).filter((item): item is Node => item !== null);
  }

  /** A mapping as plain data, aliases followed. */
  plain(node: YAMLMap): Record<string, unknown> {
    return node.toJS(this.doc) as Record<string, unknown>;
  }

  /** A scalar string (numbers are taken as their text, for SQL such as `sql: 1`). */
  text(node: Node | null, what: string, options: { numbers?: boolean } = {}): string | undefined {
    if (isScalar(node)) {
      if (typeof node.value === 'string') return node.value;
      if (options.numbers && typeof node.value === 'number') return String(node.source ?? node.value);
    }
    this.error(node, `${what} must be a string`);
    return undefined;
  }
}

/** The allowed entries of one mapping, read with positions. */
export class Fields {
  constructor(
    readonly file: YamlFile,
    readonly node: YAMLMap,
    readonly what: string,
    private readonly entries: Map<string, { key: Node; value: Node | null }>,
  ) {}

  get position(): SourcePosition {
    return this.file.position(this.node);
  }

  has(key: string): boolean {
    return this.entries.has(key);
  }

  /** The value node of `key`, or the mapping itself when absent (for error positions). */
  value(key: string): Node | null {
    return this.entries.get(key)?.value ?? null;
  }

  /** The key node of `key` (the mapping when absent): where to point at the entry as a whole. */
  keyNode(key: string): Node {
    return this.entries.get(key)?.key ?? this.node;
  }

  error(key: string | null, message: string): void {
    this.file.error(
      key === null ? this.node : (this.value(key) ?? this.keyNode(key)),
      `${this.what}: ${message}`,
    );
  }

  missing(key: string): void {
    this.file.error(this.node, `${this.what}: ${key} is required`);
  }

  string(key: string, required = false): string | undefined {
    if (!this.entries.has(key)) {
      if (required) this.missing(key);
      return undefined;
    }
    return this.file.text(this.value(key) ?? this.keyNode(key), `${this.what}: ${key}`);
  }

  /** SQL text: a string, or a number written bare (`sql: 1`). */
  sql(key: string, required = false): string | undefined {
    if (!this.entries.has(key)) {
      if (required) this.missing(key);
      return undefined;
    }
    const text = this.file.text(this.value(key) ?? this.keyNode(key), `${this.what}: ${key}`, {
      numbers: true,
    });
    if (text !== undefined && text.trim() === '') {
      this.error(key, `${key} must not be empty`);
      return undefined;
    }
    return text;
  }

  boolean(key: string): boolean | undefined {
    if (!this.entries.has(key)) return undefined;
    const node = this.value(key);
    if (isScalar(node) && typeof node.value === 'boolean') return node.value;
    this.error(key, `${key} must be true or false`);
    return undefined;
  }

  sequence(key: string): Node[] | undefined {
    if (!this.entries.has(key)) return undefined;
    return this.file.sequence(this.value(key) ?? this.keyNode(key), `${this.what}: ${key}`) ?? undefined;
  }

  mapping(key: string, what: string, keys: KeySpec): Fields | undefined {
    if (!this.entries.has(key)) return undefined;
    return this.file.mapping(this.value(key) ?? this.keyNode(key), what, keys) ?? undefined;
  }

  /** A mapping passed through as plain data (Cube's `meta`). */
  plain(key: string): Record<string, unknown> | undefined {
    if (!this.entries.has(key)) return undefined;
    const node = this.value(key);
    if (!isMap(node)) {
      this.error(key, `${key} must be a mapping`);
      return undefined;
    }
    return this.file.plain(node);
  }
}
