import robotsParserModule from 'robots-parser';

interface Robots {
  isAllowed(url: string, userAgent?: string): boolean | undefined;
}
// robots-parser is CommonJS; its types declare an ES default export, which Node gives as the module itself.
const robotsParser = robotsParserModule as unknown as (url: string, body: string) => Robots;

type Fetch = (url: string) => Promise<{ status: number; body: string }>;

/** Answers whether a URL may be crawled, reading each origin's robots.txt once (through the guarded client). */
export function createRobotsCheck(fetchText: Fetch, userAgent: string) {
  const byOrigin = new Map<string, Promise<Robots | null>>();
  return async (url: string): Promise<boolean> => {
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
    const robots = await byOrigin.get(origin)!;
    return robots?.isAllowed(url, userAgent) ?? true;
  };
}
