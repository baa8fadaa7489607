// Markdown files are Text modules (see the [[rules]] in wrangler.toml): a router's operation
// descriptions live beside it in `*.routes.md`.
declare module '*.md' {
  const text: string;
  export default text;
}
