import { permissions, type Permission } from '../../schema/account.ts';
import { baseUrl } from '../config.ts';

/** The OAuth scopes are the API's permission names, all but `*` (a token gets the permissions its user ticked). */
export const apiScopes = permissions.filter((permission) => permission !== '*') as Exclude<Permission, '*'>[];

export const isApiScope = (scope: string): scope is Exclude<Permission, '*'> => (apiScopes as string[]).includes(scope);

/** The canonical resource (RFC 8707) every token is bound to by default: the API's base URL. */
export const apiResource = () => baseUrl();

/** The MCP endpoint's own resource identifier (RFC 9728 names it after the metadata's path); it is the same API. */
export const mcpResource = () => `${baseUrl()}/mcp`;

/** Audiences this API accepts tokens for. */
const acceptedAudiences = () => [apiResource(), mcpResource()];

const normalised = (url: string) => {
  try {
    return new URL(url).href;
  } catch {
    return undefined;
  }
};

/**
 * The accepted audience a resource indicator names, compared as URLs: clients normalise
 * (`new URL(…).href` turns http://host:port into http://host:port/), and both name one resource.
 */
export function acceptedAudience(resource: string): string | undefined {
  const wanted = normalised(resource);
  return wanted === undefined ? undefined : acceptedAudiences().find((audience) => normalised(audience) === wanted);
}
