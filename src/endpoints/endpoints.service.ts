import type { z } from 'zod';
import type { createEndpointInput, PublishedEndpoint, updateEndpointInput } from '../../schema/endpoints.ts';
import { isDuplicateKey } from '../db/duplicate-key.ts';
import { findOwned } from '../db/find-owned.ts';
import { AppError, notFound, nullIfNotFound } from '../errors/app-error.ts';
import { forgetEndpointCalls } from './endpoint-cache.ts';
import { compileJsonSchema } from '../json-schema/json-schema.ts';
import { getScraperDoc } from '../scraping/index.ts';
import { assertEndpointShape } from './endpoint-params.ts';
import { Endpoint, type EndpointDoc } from './endpoint.model.ts';

export async function toEndpoint(doc: EndpointDoc): Promise<PublishedEndpoint> {
  // A scraper cannot be deleted while an endpoint uses it; only an endpoint created as its scraper was being
  // deleted can point at nothing, and it then shows an empty schema rather than break the list.
  const scraper = doc.outputSchemaJson ? null : await getScraperDoc(doc.workspaceId, doc.scraperId).catch(nullIfNotFound);
  const outputSchema = doc.outputSchemaJson ?? scraper?.outputSchemaJson ?? '{}';
  return {
    id: doc._id,
    slug: doc.slug,
    name: doc.name,
    description: doc.description,
    method: doc.method,
    scraper_id: doc.scraperId,
    url_template: doc.urlTemplate,
    param_schema: JSON.parse(doc.paramSchemaJson) as Record<string, unknown>,
    output_schema: JSON.parse(outputSchema) as Record<string, unknown>,
    freshness: doc.freshness,
    cache_ttl_seconds: doc.cacheTtlSeconds,
    mode: doc.mode,
    health: doc.health ?? 'ok',
    drift: doc.drift ? { at: new Date(doc.drift.at).toISOString(), run_id: doc.drift.runId, errors: doc.drift.errors } : null,
    created_at: doc.createdAt.toISOString(),
    updated_at: doc.updatedAt.toISOString(),
  };
}

/** The unique index on (workspace, slug) is what keeps slugs unique; its refusal becomes a 409 naming the field. */
const slugConflict = (error: unknown, slug: string | undefined) => {
  if (isDuplicateKey(error)) return new AppError('conflict', `slug: "${slug}" is already used by another endpoint`, { field: 'slug' });
  return error;
};

/** The scraper an endpoint is to use: 404 naming `scraper_id` when the workspace has no such scraper. */
const assertScraperExists = (workspaceId: string, scraperId: string) =>
  getScraperDoc(workspaceId, scraperId).catch((error: unknown) => {
    throw error instanceof AppError && error.code === 'not_found' ? notFound('Scraper', 'scraper_id') : error;
  });

export async function createEndpoint(workspaceId: string, input: z.infer<typeof createEndpointInput>): Promise<PublishedEndpoint> {
  await assertScraperExists(workspaceId, input.scraper_id);
  assertEndpointShape(input.param_schema, input.url_template);
  if (input.output_schema) compileJsonSchema(input.output_schema, 'output_schema');
  const doc = await Endpoint.create({
    workspaceId,
    slug: input.slug,
    name: input.name,
    description: input.description,
    method: input.method,
    scraperId: input.scraper_id,
    urlTemplate: input.url_template,
    paramSchemaJson: JSON.stringify(input.param_schema),
    outputSchemaJson: input.output_schema ? JSON.stringify(input.output_schema) : null,
    freshness: input.freshness,
    cacheTtlSeconds: input.cache_ttl_seconds,
    mode: input.mode,
  }).catch((error: unknown) => {
    throw slugConflict(error, input.slug);
  });
  return toEndpoint(doc.toObject());
}

export async function getEndpointDoc(workspaceId: string, id: string): Promise<EndpointDoc> {
  const doc = await findOwned(Endpoint, id, workspaceId);
  if (!doc) throw notFound('Endpoint');
  return doc;
}

export async function endpointBySlug(workspaceId: string, slug: string): Promise<EndpointDoc> {
  const doc = await Endpoint.findOne({ workspaceId, slug }).lean<EndpointDoc>();
  if (!doc) throw notFound(`Endpoint "${slug}"`);
  return doc;
}

async function listEndpointDocs(workspaceId: string): Promise<EndpointDoc[]> {
  return Endpoint.find({ workspaceId }).sort({ createdAt: -1, _id: 1 }).lean<EndpointDoc[]>();
}

export async function listEndpoints(workspaceId: string): Promise<PublishedEndpoint[]> {
  return Promise.all((await listEndpointDocs(workspaceId)).map(toEndpoint));
}

export async function updateEndpoint(workspaceId: string, input: z.infer<typeof updateEndpointInput>): Promise<PublishedEndpoint> {
  const current = await getEndpointDoc(workspaceId, input.id);
  if (input.scraper_id) await assertScraperExists(workspaceId, input.scraper_id);
  const paramSchema = input.param_schema ?? (JSON.parse(current.paramSchemaJson) as Record<string, unknown>);
  assertEndpointShape(paramSchema, input.url_template ?? current.urlTemplate);
  if (input.output_schema) compileJsonSchema(input.output_schema, 'output_schema');
  const changes: Partial<EndpointDoc> = {
    ...(input.slug !== undefined && { slug: input.slug }),
    ...(input.name !== undefined && { name: input.name }),
    ...(input.description !== undefined && { description: input.description }),
    ...(input.method !== undefined && { method: input.method }),
    ...(input.scraper_id !== undefined && { scraperId: input.scraper_id }),
    ...(input.url_template !== undefined && { urlTemplate: input.url_template }),
    ...(input.param_schema !== undefined && { paramSchemaJson: JSON.stringify(input.param_schema) }),
    ...(input.output_schema !== undefined && { outputSchemaJson: input.output_schema ? JSON.stringify(input.output_schema) : null }),
    ...(input.freshness !== undefined && { freshness: input.freshness }),
    ...(input.cache_ttl_seconds !== undefined && { cacheTtlSeconds: input.cache_ttl_seconds }),
    ...(input.mode !== undefined && { mode: input.mode }),
  };
  const updated = await Endpoint.findByIdAndUpdate(current._id, { $set: changes }, { returnDocument: 'after' })
    .lean<EndpointDoc>()
    .catch((error: unknown) => {
      throw slugConflict(error, input.slug);
    });
  return toEndpoint(updated!);
}

export async function deleteEndpoint(workspaceId: string, id: string): Promise<void> {
  const doc = await getEndpointDoc(workspaceId, id);
  await Endpoint.deleteOne({ _id: doc._id });
  await forgetEndpointCalls(doc._id);
}
