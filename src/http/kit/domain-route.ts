import type { IncomingMessage, ServerResponse } from 'node:http';

/** What every route is built with: the same limits and fault reporting as the procedure surfaces. */
export interface RouteOptions {
  rateLimitPerMinute: number;
  maxBodyBytes: number;
  onFault: (error: unknown) => void;
}

export type RouteHandler = (req: IncomingMessage, res: ServerResponse, pathname: string) => Promise<void>;

/**
 * An HTTP route a domain serves itself, beside its procedures, where a
 * JSON procedure cannot answer (a CSV download, a page a mail link opens,
 * the OAuth server). Domains declare them; src/http/routes.ts lists them,
 * as src/http/router.ts lists the procedures, and the server asks each in turn.
 */
export interface DomainRoute {
  /** How logs and metrics name the requests it serves; without it the route names them itself. */
  label?(pathname: string): string;
  matches(req: IncomingMessage, pathname: string): boolean;
  create(options: RouteOptions): RouteHandler;
}

export const defineDomainRoute = (route: DomainRoute) => route;
