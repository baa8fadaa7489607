import { describe, expect, it } from 'vitest';
import { api } from '../helpers/http';

// /docs runs no third-party script; everything it loads comes from this origin.
describe('/docs', () => {
  it('answers under a strict CSP and references only same-origin scripts and styles', async () => {
    const res = await api('GET', '/docs');
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toMatch(/https?:|unsafe-eval|script-src[^;]*unsafe-inline/);
    const page = res.body as string;
    const sources = [...page.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1] as string);
    const styles = [...page.matchAll(/<link\b[^>]*\bhref="([^"]+)"/g)].map((m) => m[1] as string);
    expect(sources).toEqual(['/docs/assets/swagger-ui-bundle.js', '/docs/init.js']);
    // No inline script: every <script> has a src.
    expect(page.match(/<script\b/g)?.length).toBe(sources.length);
    for (const url of [...sources, ...styles]) expect(url.startsWith('/')).toBe(true);
  });

  it('serves the pinned package files and its initializer from the Worker', async () => {
    const bundle = await api('GET', '/docs/assets/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toContain('javascript');
    expect(bundle.body).toContain('SwaggerUIBundle');
    const css = await api('GET', '/docs/assets/swagger-ui.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toContain('text/css');
    const init = await api('GET', '/docs/init.js');
    expect(init.status).toBe(200);
    expect(init.body).toContain('SwaggerUIBundle(');
    expect((await api('GET', '/docs')).body).toContain('data-url="/api/v1/openapi.json"');
  });

  it('hands out nothing else of the package', async () => {
    for (const path of ['/docs/assets/index.html', '/docs/assets/swagger-initializer.js', '/index.html']) {
      expect((await api('GET', path)).status).toBe(404);
    }
  });
});
