import { AppError } from '../errors/app-error.ts';
import { principalForAccessToken } from '../oauth/index.ts';
import { apiKeyPrefix, principalForApiKey } from './api-key.service.ts';
import type { Principal } from './principal.ts';

/** Resolves an Authorization header (an API key, or an OAuth access token) to its principal, or throws 401 for anything not usable. */
export async function authenticate(authorization: string | undefined): Promise<Principal> {
  if (/^DPoP\s/i.test(authorization ?? '')) {
    throw new AppError(
      'unauthorized',
      'DPoP is not supported: request a bearer token (no DPoP header at the token endpoint) and send Authorization: Bearer <token>',
    );
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) throw new AppError('unauthorized', 'Missing bearer credential: send Authorization: Bearer <API key or OAuth access token>');
  const credential = match[1]!;
  return credential.startsWith(apiKeyPrefix) ? principalForApiKey(credential) : principalForAccessToken(credential);
}
