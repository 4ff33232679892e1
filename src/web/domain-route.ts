import type { IncomingMessage, ServerResponse } from 'node:http';

/** What every route is built with: the same limits and fault reporting as the procedure surfaces. */
export interface RouteOptions {
  rateLimitPerMinute: number;
  maxBodyBytes: number;
  onFault: (error: unknown) => void;
}

/** What the server tells a route about the request beyond the Request itself. */
export interface RouteContext {
  /** The calling client's address: the proxy's X-Forwarded-For first entry when TRUST_PROXY is on, else the peer's. */
  clientAddress: string;
  /** The Node request and response, for a library that answers on them itself (oidc-provider). */
  node: { req: IncomingMessage; res: ServerResponse };
}

/** A route's answer; undefined when it answered on the Node response itself. */
export type RouteHandler = (request: Request, context: RouteContext) => Promise<Response | undefined>;

/**
 * An HTTP route a domain serves itself, beside its procedures, where a JSON procedure cannot answer (a CSV
 * download, a page a mail link opens, the OAuth server): declared by the domain with the web platform's Request
 * and Response, listed in src/http/routes.ts as src/http/router.ts lists the procedures, and asked in turn by the
 * server before the REST bridge.
 */
export interface DomainRoute {
  /** How logs and metrics name the requests it serves; without it the route names them itself. */
  label?(pathname: string): string;
  matches(request: Request, url: URL): boolean;
  create(options: RouteOptions): RouteHandler;
}

export const defineDomainRoute = (route: DomainRoute) => route;

/**
 * A route a domain serves on Node's request and response themselves, asked before the web surfaces build a Request:
 * for pages hit thousands of times a second (a tracked link's redirect), where building the Request and the Response
 * would cost more than the answer. Listed in src/http/routes.ts; a failure gets the standard JSON error answer.
 */
export interface NodeRoute {
  /** How logs and metrics name the requests it serves. */
  label(pathname: string): string;
  matches(pathname: string): boolean;
  serve(req: IncomingMessage, res: ServerResponse, pathname: string): void | Promise<void>;
}

export const defineNodeRoute = (route: NodeRoute) => route;
