import { defineDomainRoute } from '../../web/domain-route.ts';
import { jsonAnswer } from '../../web/answers.ts';
import { artifactFile } from './artifacts.service.ts';
import { artifactPathPrefix, verifiedArtifactId } from './artifact-url.ts';

export const isArtifactDownload = (pathname: string) => pathname.startsWith(artifactPathPrefix);

/** GET of a signed artifact URL: the file, with no API key; 403 when the URL was altered or has expired. */
export async function serveArtifactDownload(request: Request): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return jsonAnswer(405, { error: 'Use GET', code: 'method_not_allowed' });
  const id = verifiedArtifactId(new URL(request.url));
  if (!id)
    return jsonAnswer(403, {
      error: 'This download link is invalid or has expired: read the run again for a fresh one',
      code: 'link_invalid',
    });
  const file = await artifactFile(id);
  if (!file) return jsonAnswer(404, { error: 'Artifact not found', code: 'not_found' });
  return new Response(file.content, {
    headers: {
      'Content-Type': `${file.mimeType}; charset=utf-8`,
      'Content-Length': String(Buffer.byteLength(file.content)),
      'Content-Disposition': `attachment; filename="${file.name}"`,
      'Cache-Control': 'private, no-store',
    },
  });
}

export const artifactDownloadRoute = defineDomainRoute({
  label: () => '/api/agents/artifacts/{id}',
  matches: (_request, url) => isArtifactDownload(url.pathname),
  create: () => serveArtifactDownload,
});
