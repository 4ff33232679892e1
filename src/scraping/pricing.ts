import type { engines } from '../../schema/scrapers.ts';

/** Crawl credits per page fetched: rendering in Chromium costs about three plain fetches. */
export const creditsPerPage: Record<(typeof engines)[number], number> = { http: 1, browser: 3 };
