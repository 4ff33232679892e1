import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../../http/kit/send-json.ts';
import { artifactFile } from './artifacts.service.ts';
import { artifactPathPrefix, verifiedArtifactId } from './artifact-url.ts';
import { defineDomainRoute } from '../../http/kit/domain-route.ts';

export const isArtifactDownload = (pathname: string) => pathname.startsWith(artifactPathPrefix);

/** GET of a signed artifact URL: the file, with no API key; 403 when the URL was altered or has expired. */
export async function serveArtifactDownload(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { error: 'Use GET', code: 'method_not_allowed' });
  const id = verifiedArtifactId(new URL(req.url ?? '/', 'http://artifact'));
  if (!id)
    return sendJson(res, 403, {
      error: 'This download link is invalid or has expired: read the run again for a fresh one',
      code: 'link_invalid',
    });
  const file = await artifactFile(id);
  if (!file) return sendJson(res, 404, { error: 'Artifact not found', code: 'not_found' });
  res.writeHead(200, {
    'Content-Type': `${file.mimeType}; charset=utf-8`,
    'Content-Length': Buffer.byteLength(file.content),
    'Content-Disposition': `attachment; filename="${file.name}"`,
    'Cache-Control': 'private, no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : file.content);
}

export const artifactDownloadRoute = defineDomainRoute({
  label: () => '/api/agents/artifacts/{id}',
  matches: (_req, pathname) => isArtifactDownload(pathname),
  create: () => (req, res) => serveArtifactDownload(req, res),
});
