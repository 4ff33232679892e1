import { z } from 'zod';
import type { OpenAPIObject, PathItemObject } from 'openapi3-ts/oas31';
import { eventData, eventDescriptions, eventTypes } from '../../events/event-types.ts';
import { inlineJsonSchema } from './zod-json-schema.ts';

const signatureHeaders = [
  { name: 'webhook-id', description: "The event's id, the same on every attempt: deduplicate on it." },
  { name: 'webhook-timestamp', description: 'Seconds since the epoch when this attempt was signed.' },
  {
    name: 'webhook-signature',
    description: '`v1,<base64 HMAC-SHA256 of id.timestamp.body>` per secret in use, space-separated (two during a rotation).',
  },
].map((header) => ({ in: 'header' as const, required: true, schema: { type: 'string' as const }, ...header }));

/**
 * The OpenAPI 3.1 `webhooks` section: one entry per event type, its message
 * `{ type, timestamp, data }` as deliveries POST it (Standard Webhooks 1.0),
 * `data` a named component schema. A payload whose schema the paths already
 * name (Lead, AgentRun, ...) is that component; others are added to
 * `document.components.schemas` under their zod `id`.
 */
export function webhooksSection(document: OpenAPIObject): Record<string, PathItemObject> {
  const schemas = (document.components!.schemas ??= {});
  const payloadRef = (schema: z.ZodType) => {
    const name = z.globalRegistry.get(schema)?.id;
    if (!name) throw new Error('webhooksSection: every event payload schema needs a zod `id`');
    schemas[name] ??= inlineJsonSchema(schema, 'output') as never;
    return { $ref: `#/components/schemas/${name}` };
  };
  return Object.fromEntries(
    eventTypes.map((type) => [
      type,
      {
        post: {
          operationId: `event-${type}`,
          tags: ['Webhooks'],
          summary: `${type} event`,
          description: `${eventDescriptions[type]} Delivered at least once, signed as Standard Webhooks 1.0.`,
          security: [],
          parameters: signatureHeaders,
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['type', 'timestamp', 'data'],
                  properties: {
                    type: { type: 'string', const: type, description: 'The event type.' },
                    timestamp: { type: 'string', format: 'date-time', description: 'When the event happened.' },
                    data: { ...payloadRef(eventData[type]), description: 'The event data.' },
                  },
                },
              },
            },
          },
          responses: {
            '200': { description: 'Any 2xx within 15 s is success; 410 disables the endpoint; anything else is retried.' },
          },
        },
      },
    ]),
  );
}
