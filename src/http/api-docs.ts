/** An operation's documentation: the one-line summary and, optionally, the longer description. */
export interface OperationDoc {
  summary: string;
  description?: string;
}

/**
 * The documentation of a router's operations, by operationId, from the Markdown file beside it:
 * each `## operationId: Summary` heading starts a section whose text is the description.
 * Text before the first heading is the file's own introduction; `{{NAME}}` is replaced by
 * `values[NAME]` (a limit defined in code), and a name not given is an error at load.
 */
export type ApiDocs = Readonly<Record<string, OperationDoc>>;

export function apiDocs(markdown: string, values: Record<string, string | number> = {}): ApiDocs {
  const sections: Record<string, OperationDoc> = {};
  // `{{NAME}}` stands for a limit the code defines, so the prose cannot drift from it.
  const fill = (text: string) =>
    text.replace(/\{\{([\w.]+)\}\}/g, (_, name: string) => {
      if (!(name in values)) throw new Error(`apiDocs: {{${name}}} is not given`);
      return String(values[name]);
    });
  for (const part of markdown.split(/^## /m).slice(1)) {
    const newline = part.indexOf('\n');
    const heading = newline < 0 ? part : part.slice(0, newline);
    const colon = heading.indexOf(': ');
    if (colon < 0) throw new Error(`apiDocs: heading "## ${heading}" is not "## operationId: Summary"`);
    const id = heading.slice(0, colon).trim();
    if (id in sections) throw new Error(`apiDocs: section "${id}" appears twice`);
    const description = newline < 0 ? '' : part.slice(newline + 1).trim();
    sections[id] = {
      summary: fill(heading.slice(colon + 2).trim()),
      ...(description ? { description: fill(description) } : {}),
    };
  }
  return sections;
}
