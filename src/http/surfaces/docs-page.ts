import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import { jsonAnswer } from '../../web/answers.ts';

const require = createRequire(import.meta.url);
const assetDir = join(require.resolve('swagger-ui-dist/package.json'), '..');
const assets = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png']);
const mime: Record<string, string> = { '.css': 'text/css', '.js': 'text/javascript', '.png': 'image/png' };

// Every URL is relative (the page is /docs), so the reference works behind a proxy that serves the API under a path.
const page = `<!doctype html>
<html><head><meta charset="utf-8"><title>API reference</title>
<link rel="stylesheet" href="docs/swagger-ui.css"><link rel="icon" href="docs/favicon-32x32.png"></head>
<body><div id="reference"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: 'openapi.json', dom_id: '#reference', persistAuthorization: true });</script>
</body></html>`;

/** The interactive reference at /docs, served from local assets so it works without internet. */
export async function serveDocs(pathname: string): Promise<Response> {
  if (pathname === '/docs/') return new Response(null, { status: 301, headers: { Location: '../docs' } });
  if (pathname === '/docs') return new Response(page, { headers: { 'Content-Type': 'text/html; charset=utf-8' } });
  const name = pathname.slice('/docs/'.length);
  if (!assets.has(name)) return jsonAnswer(404, { error: 'No such asset', code: 'not_found' });
  return new Response(await readFile(join(assetDir, name)), {
    headers: { 'Content-Type': mime[extname(name)] ?? 'application/octet-stream', 'Cache-Control': 'public, max-age=86400' },
  });
}
