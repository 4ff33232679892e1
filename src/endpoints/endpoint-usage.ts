import { Endpoint } from './endpoint.model.ts';

/** The slugs of the workspace's endpoints backed by a scraper (a scraper in use cannot be deleted). */
export async function endpointSlugsUsingScraper(workspaceId: string, scraperId: string): Promise<string[]> {
  return (await Endpoint.find({ workspaceId, scraperId }, { slug: 1 }).lean<Array<{ slug: string }>>()).map((e) => e.slug);
}
