import { permissions, type Permission } from '../../schema/account.ts';
import { baseUrl } from '../config.ts';

/** The OAuth scopes are the spec's permission names, all but `*` (a token gets the permissions its user ticked). */
export const apiScopes = permissions.filter((permission) => permission !== '*') as Exclude<Permission, '*'>[];

export const isApiScope = (scope: string): scope is Exclude<Permission, '*'> => (apiScopes as string[]).includes(scope);

/** The canonical resource (RFC 8707) every token is bound to by default: the API's base URL. */
export const apiResource = () => baseUrl();

/** The MCP endpoint's own resource identifier (RFC 9728 names it after the metadata's path); it is the same API. */
export const mcpResource = () => `${baseUrl()}/mcp`;

/** Audiences this API accepts tokens for. */
export const acceptedAudiences = () => [apiResource(), mcpResource()];
