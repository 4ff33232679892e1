import robotsParserModule from 'robots-parser';

interface Robots {
  isAllowed(url: string, userAgent?: string): boolean | undefined;
  getSitemaps(): string[];
}
// robots-parser is CommonJS; its types declare an ES default export, which Node gives as the module itself.
const robotsParser = robotsParserModule as unknown as (url: string, body: string) => Robots;

type Fetch = (url: string) => Promise<{ status: number; body: string }>;

/** Reads each origin's robots.txt once (through the guarded client): what it allows, and the sitemaps it lists. */
export function createRobotsReader(fetchText: Fetch, userAgent: string) {
  const byOrigin = new Map<string, Promise<Robots | null>>();
  const robotsOf = (url: string) => {
    const origin = new URL(url).origin;
    if (!byOrigin.has(origin)) {
      const robotsUrl = `${origin}/robots.txt`;
      byOrigin.set(
        origin,
        fetchText(robotsUrl).then(
          ({ status, body }) => (status >= 200 && status < 300 ? robotsParser(robotsUrl, body) : null),
          () => null,
        ),
      );
    }
    return byOrigin.get(origin)!;
  };
  return {
    isAllowed: async (url: string): Promise<boolean> => (await robotsOf(url))?.isAllowed(url, userAgent) ?? true,
    /** The `Sitemap:` lines of the site's robots.txt. */
    sitemaps: async (siteUrl: string): Promise<string[]> => (await robotsOf(siteUrl))?.getSitemaps() ?? [],
  };
}

/** Answers whether a URL may be crawled, reading each origin's robots.txt once (through the guarded client). */
export function createRobotsCheck(fetchText: Fetch, userAgent: string) {
  return createRobotsReader(fetchText, userAgent).isAllowed;
}
