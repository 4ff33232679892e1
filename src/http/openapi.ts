import { z } from 'zod';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { errorBody } from '../../schema/common.ts';
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
  return document;
}
