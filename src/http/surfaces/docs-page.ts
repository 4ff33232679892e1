import { createReadStream, existsSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { extname, join, normalize } from 'node:path';

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
export function serveDocs(req: IncomingMessage, res: ServerResponse, pathname: string) {
  if (pathname === '/docs/') {
    res.writeHead(301, { Location: '../docs' }).end();
    return;
  }
  if (pathname === '/docs') {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(page);
    return;
  }
  const name = normalize(pathname.slice('/docs/'.length));
  const file = join(assetDir, name);
  if (!assets.has(name) || !existsSync(file)) {
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ error: 'No such asset', code: 'not_found' }));
    return;
  }
  res.writeHead(200, { 'Content-Type': mime[extname(name)] ?? 'application/octet-stream', 'Cache-Control': 'public, max-age=86400' });
  if (req.method === 'HEAD') return res.end();
  createReadStream(file).pipe(res);
}
