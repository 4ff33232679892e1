import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { generateCompanies, type WorldCompany, type WorldPerson } from './companies.ts';
import { directoryPages, mediaPages, nonCompanyPages, placeSites, platformPages, type Layout } from './other-sites.ts';
import { companyPages, type Page } from './pages.ts';
import { createSearchIndex, searchDocument } from './search-server.ts';

export type { WorldCompany, WorldPerson } from './companies.ts';
export type { Layout } from './other-sites.ts';

export interface WorldOptions {
  companies?: number;
  seed?: number;
  /** `hosts`: a host per company; `paths`: companies under paths of shared hosts. */
  layout?: Layout;
  /** Shapes spelled differently, for the benchmark only (never used in tests). */
  holdout?: boolean;
}

export interface AgentWorld {
  /** The SearXNG-compatible search API (SEARCH_URL). */
  searchUrl: string;
  /** `http://<host>:<port>` of a site. */
  siteOrigin(host: string): string;
  /** The home page of a company's site (on its host, or under its path). */
  siteUrl(company: WorldCompany): string;
  /** `host=127.0.0.1` for every site, for OUTBOUND_HOST_OVERRIDES. */
  hostOverrides: string;
  companies: WorldCompany[];
  /** Paths requested, by site host. */
  hits: Map<string, string[]>;
  queries: string[];
  /** The people a goal should find: those of companies of that industry and city with one of the role keys (`cto`, `ceo`, `founder`, …). */
  expected(goal: { industry: string; city: string; roles: string[] }): Array<WorldPerson & { company: WorldCompany }>;
  close(): Promise<void>;
}

const listen = (server: Server) =>
  new Promise<number>((done) => server.listen(0, '127.0.0.1', () => done((server.address() as AddressInfo).port)));

/**
 * Serves a fictional web on 127.0.0.1: every company site (on its own host
 * or a path of a shared one), a directory, a media site, an event and a job
 * board, from one server routed by the Host header, and a search API over
 * them on another port.
 */
export async function startAgentWorld(options: WorldOptions = {}): Promise<AgentWorld> {
  const holdout = options.holdout ?? false;
  const companies = generateCompanies(options.companies, options.seed, holdout);
  placeSites(companies, options.layout ?? 'hosts', holdout);
  const hits = new Map<string, string[]>();
  const sites = new Map<string, Map<string, Page>>();
  const robots = new Map<string, string>();
  const siteServer = createServer((req, res) => {
    const host = (req.headers.host ?? '').split(':')[0]!;
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(host, [...(hits.get(host) ?? []), path]);
    if (path === '/robots.txt' && robots.has(host)) return void res.writeHead(200, { 'content-type': 'text/plain' }).end(robots.get(host));
    const page = sites.get(host)?.get(path);
    if (!page) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page.html);
  });
  const sitePort = await listen(siteServer);
  const siteOrigin = (host: string) => `http://${host}:${sitePort}`;
  const siteUrl = (company: WorldCompany) => `${siteOrigin(company.siteHost)}${company.sitePrefix}/`;
  for (const [host, pages] of platformPages(companies, siteUrl)) sites.set(host, pages);
  for (const company of companies) {
    const pages = sites.get(company.siteHost) ?? new Map<string, Page>();
    for (const [path, page] of companyPages(
      company,
      companies.filter((c) => c !== company),
    ))
      pages.set(path, page);
    sites.set(company.siteHost, pages);
    if (company.privateArea)
      robots.set(company.siteHost, `${robots.get(company.siteHost) ?? 'User-agent: *\n'}Disallow: ${company.sitePrefix}/private/\n`);
  }
  sites.set('directory.test', directoryPages(companies, siteUrl, holdout));
  sites.set(holdout ? 'press.test' : 'media.test', mediaPages(companies, siteUrl, holdout));
  for (const [host, pages] of nonCompanyPages(companies, siteUrl)) sites.set(host, pages);

  const search = createSearchIndex(
    [...sites].flatMap(([host, pages]) =>
      [...pages].filter(([, page]) => page.searchable).map(([path, page]) => searchDocument(`${siteOrigin(host)}${path}`, page.html)),
    ),
  );
  const queries: string[] = [];
  const searchServer = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname !== '/search') return void res.writeHead(404).end();
    if (url.searchParams.get('format') !== 'json') return void res.writeHead(403).end('format not allowed');
    const q = url.searchParams.get('q') ?? '';
    queries.push(q);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(search(q, Number(url.searchParams.get('pageno') ?? 1))));
  });
  const searchPort = await listen(searchServer);

  return {
    searchUrl: `http://127.0.0.1:${searchPort}`,
    siteOrigin,
    siteUrl,
    hostOverrides: [...sites.keys()].map((host) => `${host}=127.0.0.1`).join(','),
    companies,
    hits,
    queries,
    expected: ({ industry, city, roles }) =>
      companies
        .filter((c) => c.industry === industry && c.city === city)
        .flatMap((company) => company.people.filter((p) => p.roles.some((role) => roles.includes(role))).map((p) => ({ ...p, company }))),
    close: async () => {
      for (const server of [siteServer, searchServer]) {
        server.closeAllConnections();
        await new Promise<void>((done) => server.close(() => done()));
      }
    },
  };
}

/** The world for one test file, its addresses written into `env` (SEARCH_URL, OUTBOUND_HOST_OVERRIDES, OUTBOUND_ALLOWED_ADDRESSES) before the service starts. */
export function useAgentWorld(env: Record<string, string>, options: Omit<WorldOptions, 'holdout'> = {}): AgentWorld {
  const world = {} as AgentWorld;
  beforeAll(async () => {
    Object.assign(world, await startAgentWorld(options));
    Object.assign(env, {
      SEARCH_URL: world.searchUrl,
      OUTBOUND_HOST_OVERRIDES: world.hostOverrides,
      OUTBOUND_ALLOWED_ADDRESSES: '127.0.0.1',
    });
  });
  afterAll(() => world.close?.());
  return world;
}
