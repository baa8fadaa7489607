import { createRouter } from './router';

/**
 * The API reference UI: Swagger UI from the `swagger-ui-dist` package pinned in package.json,
 * served from this Worker's own origin (Workers Static Assets, binding ASSETS) under a strict
 * Content-Security-Policy. No script or style comes from another origin at run time.
 */

/** The package files the page needs; nothing else of the asset directory is reachable. */
const ASSET_FILES = new Map([
  ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
  ['swagger-ui.css', 'text/css; charset=utf-8'],
]);

/**
 * Scripts and styles from this origin only. Swagger UI sets style attributes at run time, so
 * styles allow 'unsafe-inline' (styles cannot run code); scripts never do.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>edgeboard API reference</title>
    <link rel="stylesheet" href="/docs/assets/swagger-ui.css" />
  </head>
  <body>
    <div id="api-reference" data-url="/api/v1/openapi.json"></div>
    <script src="/docs/assets/swagger-ui-bundle.js"></script>
    <script src="/docs/init.js"></script>
  </body>
</html>`;

// A file, not an inline script, so script-src needs no 'unsafe-inline' or hash.
// validatorUrl null: Swagger UI would otherwise load a badge from validator.swagger.io.
const INIT = `const root = document.getElementById('api-reference');
window.ui = SwaggerUIBundle({
  url: root.dataset.url,
  dom_id: '#api-reference',
  validatorUrl: null,
  deepLinking: true,
});
`;

/** /docs, its initializer and the two package files. Mounted at /docs. */
export const docsRoutes = createRouter()
  .get('/', (c) => {
    c.header('content-security-policy', DOCS_CSP);
    return c.html(PAGE);
  })
  .get('/init.js', (c) => {
    c.header('content-type', 'text/javascript; charset=utf-8');
    c.header('content-security-policy', DOCS_CSP);
    return c.body(INIT);
  })
  .get('/assets/:file', async (c) => {
    const file = c.req.param('file');
    const type = ASSET_FILES.get(file);
    if (!type) return c.notFound();
    const asset = await c.env.ASSETS.fetch(new URL(`/${file}`, c.req.url));
    if (!asset.ok) return c.notFound();
    return new Response(asset.body, {
      headers: {
        'content-type': type,
        'cache-control': 'public, max-age=86400',
        'x-content-type-options': 'nosniff',
      },
    });
  });
