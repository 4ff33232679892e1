import { createHmac, timingSafeEqual } from 'node:crypto';
import { baseUrl } from '../../config.ts';
import { nowMs } from '../../clock.ts';
import { signingKeyObject } from '../../secrets/secret-box.ts';

/** How long a download URL works. */
export const artifactUrlLifetimeMs = 3_600_000;
export const artifactPathPrefix = '/api/agents/artifacts/';

const signature = (artifactId: string, expires: number) =>
  createHmac('sha256', signingKeyObject('agent-artifacts')).update(`${artifactId}\n${expires}`).digest('base64url');

/** A URL that downloads the artifact without an API key until it expires (one hour): its id and expiry signed with HMAC-SHA256. */
export function signedArtifactUrl(artifactId: string): string {
  const expires = Math.floor((nowMs() + artifactUrlLifetimeMs) / 1000);
  return `${baseUrl()}${artifactPathPrefix}${artifactId}?expires=${expires}&signature=${signature(artifactId, expires)}`;
}

/** The artifact a download URL names, or null when its signature does not match or it has expired. */
export function verifiedArtifactId(url: URL): string | null {
  const artifactId = decodeURIComponent(url.pathname.slice(artifactPathPrefix.length));
  const expires = Number(url.searchParams.get('expires'));
  const given = Buffer.from(url.searchParams.get('signature') ?? '');
  if (!artifactId || !Number.isSafeInteger(expires)) return null;
  const expected = Buffer.from(signature(artifactId, expires));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return expires * 1000 > nowMs() ? artifactId : null;
}
