import { AppError } from '../errors/app-error.ts';
import { principalForApiKey } from './api-key.service.ts';
import type { Principal } from './principal.ts';

/** Resolves an Authorization header to its principal, or throws 401 for anything not usable. */
export async function authenticate(authorization: string | undefined): Promise<Principal> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) throw new AppError('unauthorized', 'Missing bearer credential: send Authorization: Bearer <API key>');
  return principalForApiKey(match[1]!);
}
