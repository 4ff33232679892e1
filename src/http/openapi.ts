import { z } from 'zod';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { OperationObject } from 'openapi3-ts/oas31';
import { errorBody } from '../../schema/common.ts';
import type { PublishedEndpoint } from '../../schema/endpoints.ts';
import type { AppRouter } from '../router.ts';
import { procedureDefs } from '../trpc/procedure-defs.ts';

type Operation = {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: unknown;
  responses: Record<string, { description: string; content?: unknown }>;
};

/** JSON Schema of a zod schema, inlined (no $defs, which would not resolve inside the OpenAPI document). */
const inlineJsonSchema = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { io, metadata: z.registry(), unrepresentable: 'any' }) as Record<string, unknown>;

const errorContent = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };

/**
 * The OpenAPI 3.1 document: trpc-to-openapi's, corrected where the REST
 * bridge serves differently (success statuses, DELETE bodies, error bodies).
 */
export function buildOpenApiDocument(appRouter: AppRouter, baseUrl: string): OpenAPIObject {
  const document = generateOpenApiDocument(appRouter, {
    title: 'Lead, Outreach, Agent and Scraping API',
    version: '2.0.0',
    baseUrl,
    description: 'Every call carries `Authorization: Bearer <API key>`. Errors are `{ "error", "code" }` plus extra fields.',
  });
  document.components ??= {};
  document.components.schemas = { ...document.components.schemas, Error: inlineJsonSchema(errorBody, 'output') as never };

  for (const procedure of Object.values(procedureDefs(appRouter))) {
    const openapi = procedure.meta?.openapi;
    if (!openapi) continue;
    const operation = (document.paths?.[openapi.path] as Record<string, Operation> | undefined)?.[openapi.method.toLowerCase()];
    if (!operation) continue;
    const success = procedure.meta?.successStatus;
    if (typeof success === 'number' && success !== 200) {
      operation.responses[String(success)] = operation.responses['200']!;
      delete operation.responses['200'];
    }
    for (const [status, description] of Object.entries(procedure.meta?.otherSuccessStatuses ?? {})) {
      operation.responses[status] = { ...operation.responses['200']!, description };
    }
    if (openapi.method === 'DELETE' && procedure.inputs[0]) {
      operation.parameters = operation.parameters?.filter((p) => p.in !== 'query');
      operation.requestBody = {
        required: true,
        content: { 'application/json': { schema: inlineJsonSchema(procedure.inputs[0], 'input') } },
      };
    }
    for (const status of ['400', '401', '403', '404', '429', '500']) {
      operation.responses[status] = { description: operation.responses[status]?.description ?? 'Error', content: errorContent };
    }
  }
  document.paths!['/v1/e/{slug}'] = { ...document.paths!['/v1/e/{slug}'], get: invokeOperation('GET', { type: 'object' }, {}, 'slug') };
  return document;
}

const runStatusSchema = {
  type: 'object',
  properties: { runId: { type: 'string', format: 'uuid' }, status: { type: 'string', enum: ['queued', 'running'] } },
  required: ['runId', 'status'],
};

/** One call of a published endpoint: its parameters typed by its param_schema, its data by its output_schema. */
function invokeOperation(method: 'GET' | 'POST', paramSchema: Record<string, unknown>, outputSchema: Record<string, unknown>, slugParameter?: string): OperationObject {
  const properties = (paramSchema.properties as Record<string, Record<string, unknown>> | undefined) ?? {};
  const required = (paramSchema.required as string[] | undefined) ?? [];
  const query = Object.entries(properties).map(([name, schema]) => ({ in: 'query' as const, name, required: required.includes(name), schema, description: schema.description as string | undefined }));
  return {
    tags: ['Published endpoints'],
    summary: slugParameter ? 'Call a published GET endpoint (its parameters are its own)' : `Call this published endpoint`,
    security: [{ Authorization: [] }],
    parameters: [...(slugParameter ? [{ in: 'path' as const, name: slugParameter, required: true, schema: { type: 'string' as const } }] : []), ...(method === 'GET' ? query : [])],
    ...(method === 'POST' && { requestBody: { required: true, content: { 'application/json': { schema: paramSchema } } } }),
    responses: {
      200: { description: 'The extracted data (X-Cache says HIT or MISS, Age its age in seconds)', content: { 'application/json': { schema: outputSchema } } },
      202: { description: 'Still running: poll /v1/e/{slug}/results/{runId}', content: { 'application/json': { schema: runStatusSchema } } },
      ...Object.fromEntries(['400', '401', '403', '404', '422', '429'].map((status) => [status, { description: 'Error', content: errorContent }])),
    },
  };
}

/** The document for one workspace: each of its published endpoints at its own typed path. */
export function withPublishedEndpoints(document: OpenAPIObject, endpoints: PublishedEndpoint[]): OpenAPIObject {
  const paths = { ...document.paths };
  for (const endpoint of endpoints) {
    paths[`/v1/e/${endpoint.slug}`] = {
      [endpoint.method.toLowerCase()]: { ...invokeOperation(endpoint.method, endpoint.param_schema, endpoint.output_schema), summary: endpoint.name, description: endpoint.description, operationId: `invoke_${endpoint.slug.replaceAll('-', '_')}` },
    };
  }
  return { ...document, paths };
}
