import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { OperationObject } from 'openapi3-ts/oas31';
import { errorBody, scrapingErrorBody } from '../../../schema/common.ts';
import { exportLeadsInput, leadExportColumns } from '../../../schema/leads.ts';
import type { PublishedEndpoint } from '../../../schema/endpoints.ts';
import { leadExportAccess, leadExportPath } from '../../leads/index.ts';
import type { AppRouter } from '../router.ts';
import type { Meta } from '../../trpc/init.ts';
import { procedureDefs, type ProcedureDef } from '../../trpc/procedure-defs.ts';
import { bodyExample, pathParameterNames, setBodyExample, withoutPathParameters } from './openapi-examples.ts';
import { declareHeaders, declareOperationHeaders } from './openapi-headers.ts';
import { documentLeadImports } from './openapi-lead-imports.ts';
import { errorCodesOf, errorResponses } from './openapi-responses.ts';
import { webhooksSection } from './openapi-webhooks.ts';
import { inlineJsonSchema, typeEnumKeyedRecords } from './zod-json-schema.ts';

type Operation = {
  description?: string;
  'x-permission'?: string;
  'x-plan'?: string;
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: unknown;
  responses: Record<string, { description: string; content?: unknown }>;
};

const jsonContent = (schema: Record<string, unknown>) => ({ 'application/json': { schema } });

/**
 * The OpenAPI 3.1 document: trpc-to-openapi's, corrected where the REST
 * bridge serves differently: success statuses and bodies (restResponses),
 * DELETE bodies, and the error statuses each operation can really answer
 * with the bodies it answers them with (openapi-responses.ts); completed
 * with the `webhooks` section (openapi-webhooks.ts) and enum-keyed records
 * typed with their keys, so generated clients need no hand fixes.
 */
export function buildOpenApiDocument(appRouter: AppRouter, baseUrl: string): OpenAPIObject {
  const document = generateOpenApiDocument(appRouter, {
    title: 'Lead, Outreach, Agent and Scraping API',
    version: '2.0.0',
    baseUrl,
    description:
      'Every call carries `Authorization: Bearer <API key>`. Errors are `{ "error", "code" }` plus the extra fields of the `Error` schema; ' +
      'the scraping routes add `success: false` and `errorType` (`ScrapingError`). Each operation lists every status it answers.',
  });
  // trpc-to-openapi's own error shapes (`error.BAD_REQUEST`, ...) are never sent: the API's are Error and ScrapingError.
  const generated = Object.entries(document.components?.schemas ?? {}).filter(([name]) => !name.startsWith('error.'));
  document.components = {
    ...document.components,
    schemas: {
      ...Object.fromEntries(generated),
      Error: inlineJsonSchema(errorBody, 'output') as never,
      ScrapingError: inlineJsonSchema(scrapingErrorBody, 'output') as never,
    },
  };

  const procedures = procedureDefs(appRouter);
  for (const procedure of Object.values(procedures)) {
    const meta = procedure.meta;
    const openapi = meta?.openapi;
    if (!meta || !openapi) continue;
    const operation = (document.paths?.[openapi.path] as Record<string, Operation> | undefined)?.[openapi.method.toLowerCase()];
    if (!operation) continue;
    documentAccess(operation, meta);
    const pathParameters = pathParameterNames(openapi.path);
    if (openapi.method === 'DELETE' && procedure.inputs[0]) {
      operation.parameters = operation.parameters?.filter((p) => p.in !== 'query');
      // The path names what is deleted (the bridge merges it in), so a body repeating it would only be a second, ignored copy.
      const body = withoutPathParameters(inlineJsonSchema(procedure.inputs[0], 'input'), pathParameters);
      if (body) operation.requestBody = { required: true, content: jsonContent(body) };
      else delete operation.requestBody;
    }
    setBodyExample(operation.requestBody, bodyExample(procedure.inputs[0], pathParameters));
    operation.responses = {
      ...successResponses(operation.responses['200']!, meta),
      ...errorResponses(
        errorCodesOf({ method: openapi.method, path: openapi.path, meta, takesInput: takesInput(procedure) }),
        meta.errorStyle,
      ),
    };
  }
  const invoke = procedures['endpoints.invoke']!;
  document.paths!['/v1/e/{slug}'] = {
    ...document.paths!['/v1/e/{slug}'],
    get: { ...invokeOperation('GET', { type: 'object' }, invokeResponses('GET', invoke), 'slug'), operationId: 'endpoints-invoke' },
  };
  document.paths!['/v1/e/{slug}'].post = {
    ...document.paths!['/v1/e/{slug}'].post,
    requestBody: invokePostBody(procedures['endpoints.invokePost']!),
  };
  document.paths![leadExportPath] = { get: leadExportOperation() };
  documentLeadImports(document, documentAccess as (operation: Record<string, unknown>, meta: Meta) => void);
  declareHeaders(document);
  document.webhooks = webhooksSection(document);
  typeEnumKeyedRecords(document);
  dropSafeIntegerBounds(document);
  dropUnreferencedSchemas(document);
  return document;
}

/**
 * A zod id names its schema as a component wherever trpc-to-openapi meets it;
 * where the operation's response was then written from `restResponses`
 * (inlined), nothing refers to that component any more: it is dropped.
 */
function dropUnreferencedSchemas(document: OpenAPIObject): void {
  const schemas = document.components?.schemas ?? {};
  const referenced = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const { $ref } = node as { $ref?: unknown };
    if (typeof $ref === 'string' && $ref.startsWith('#/components/schemas/')) {
      const name = $ref.slice('#/components/schemas/'.length);
      if (!referenced.has(name)) {
        referenced.add(name);
        visit(schemas[name]);
      }
    }
    Object.values(node).forEach(visit);
  };
  visit({ paths: document.paths, webhooks: document.webhooks, components: { ...document.components, schemas: {} } });
  for (const name of Object.keys(schemas)) if (!referenced.has(name)) delete schemas[name];
}

/** A POST endpoint's body is its parameters, flat (paramsFromRest), each endpoint's own: any object, its example the input example's `params`. */
function invokePostBody(procedure: ProcedureDef) {
  const schema = { type: 'object', additionalProperties: true, description: "The endpoint's parameters, as its param_schema types them." };
  const requestBody = { required: true, content: jsonContent(schema) };
  setBodyExample(requestBody, bodyExample(procedure.inputs[0], [])?.params);
  return requestBody;
}

/** The lead export, a CSV route beside the bridge (export-leads.route.ts): its filters are the list's, its 200 answer `text/csv`. */
function leadExportOperation(): OperationObject {
  const { properties = {}, required = [] } = inlineJsonSchema(exportLeadsInput, 'input') as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const operation: Operation & OperationObject = {
    operationId: 'leads-export',
    tags: ['Leads'],
    summary: 'Export leads as CSV',
    description:
      "Every lead the list's filters match (no page cap), newest first, streamed as a `text/csv` attachment. " +
      'Cells starting with `=`, `+`, `-` or `@` are prefixed with a single quote so spreadsheet apps show them as text.',
    security: [{ Authorization: [] }],
    parameters: Object.entries(properties).map(([name, schema]) => ({
      in: 'query' as const,
      name,
      required: required.includes(name),
      schema,
      description: schema.description as string | undefined,
    })),
    responses: {
      '200': {
        description: `The leads, RFC 4180: header row ${leadExportColumns.join(',')}, then one column per custom column (by key).`,
        content: { 'text/csv': { schema: { type: 'string' } } },
      },
      ...errorResponses(errorCodesOf({ method: 'GET', path: leadExportPath, meta: leadExportAccess as Meta, takesInput: true })),
    },
  };
  documentAccess(operation, leadExportAccess as Meta);
  return operation;
}

const takesInput = (procedure: ProcedureDef) => Boolean(procedure.inputs[0]) && procedure.inputs[0]!.def.type !== 'void';

/**
 * The success responses as the REST bridge answers them: `restResponses` when declared, else the output at
 * `successStatus`; `restMediaTypes` are the 200 answer's other forms.
 */
function successResponses(generated: Operation['responses'][string], meta: Meta): Operation['responses'] {
  if (meta.restResponses) {
    return Object.fromEntries(
      Object.entries(meta.restResponses).map(([status, { description, body }]) => [
        status,
        {
          description,
          content: { ...jsonContent(inlineJsonSchema(body, 'output')), ...(status === '200' && meta.restMediaTypes) },
        },
      ]),
    );
  }
  const success = meta.restMediaTypes ? { ...generated, content: { ...(generated.content as object), ...meta.restMediaTypes } } : generated;
  return { [String(typeof meta.successStatus === 'number' ? meta.successStatus : 200)]: success };
}

/**
 * zod's `z.int()` bounds itself to the safe integers, which JSON Schema gets
 * as `minimum: -9007199254740991` / `maximum: 9007199254740991`: no bound a
 * client needs to see (reference pages show them as examples). Dropped.
 */
function dropSafeIntegerBounds(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(dropSafeIntegerBounds);
  if (!node || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  if (record.minimum === Number.MIN_SAFE_INTEGER) delete record.minimum;
  if (record.maximum === Number.MAX_SAFE_INTEGER) delete record.maximum;
  for (const value of Object.values(record)) dropSafeIntegerBounds(value);
}

/** Who may call an operation: in its description for people, and as `x-permission` / `x-plan` for tools. */
function documentAccess(operation: Operation, { permission, plan }: Meta) {
  operation['x-permission'] = permission;
  const access = [permission === 'any' ? 'Any valid credential may call this.' : `Permission: \`${permission}\`.`];
  if (plan) {
    operation['x-plan'] = plan;
    access.push(`Plan: ${plan === 'paid' ? 'any paid plan' : 'Pro or Business'}.`);
  }
  operation.description = [operation.description, access.join(' ')].filter(Boolean).join('\n\n');
}

/** The answers of a call of a published endpoint, as its procedure declares them (`endpoints.invoke` for GET, `endpoints.invokePost` for POST). */
function invokeResponses(method: 'GET' | 'POST', procedure: ProcedureDef): Operation['responses'] {
  const meta = procedure.meta!;
  return {
    ...successResponses({ description: 'Successful response' }, meta),
    ...errorResponses(errorCodesOf({ method, path: '/v1/e/{slug}', meta, takesInput: true }), meta.errorStyle),
  };
}

/** One call of a published endpoint: its parameters typed by its param_schema; `responses` as invokeResponses. */
function invokeOperation(
  method: 'GET' | 'POST',
  paramSchema: Record<string, unknown>,
  responses: Operation['responses'],
  slugParameter?: string,
): OperationObject {
  const properties = (paramSchema.properties as Record<string, Record<string, unknown>> | undefined) ?? {};
  const required = (paramSchema.required as string[] | undefined) ?? [];
  const query = Object.entries(properties).map(([name, schema]) => ({
    in: 'query' as const,
    name,
    required: required.includes(name),
    schema,
    description: schema.description as string | undefined,
  }));
  return {
    tags: ['Published endpoints'],
    summary: slugParameter ? 'Call a published GET endpoint (its parameters are its own)' : `Call this published endpoint`,
    security: [{ Authorization: [] }],
    description: 'Permission: `endpoints:invoke`.',
    'x-permission': 'endpoints:invoke',
    parameters: [
      ...(slugParameter ? [{ in: 'path' as const, name: slugParameter, required: true, schema: { type: 'string' as const } }] : []),
      ...(method === 'GET' ? query : []),
    ],
    ...(method === 'POST' && { requestBody: { required: true, content: jsonContent(paramSchema) } }),
    responses,
  };
}

/**
 * The document for one workspace: each of its published endpoints at its own
 * typed path, answering as `/v1/e/{slug}` does with that method, its data
 * typed by its output_schema; never 405, as only its own method is documented.
 */
export function withPublishedEndpoints(document: OpenAPIObject, endpoints: PublishedEndpoint[]): OpenAPIObject {
  const paths = { ...document.paths };
  const generic = document.paths?.['/v1/e/{slug}'] as Record<string, Operation> | undefined;
  for (const endpoint of endpoints) {
    const { '405': _otherMethod, ...shared } = generic?.[endpoint.method.toLowerCase()]?.responses ?? {};
    // Copies: the shared document's responses are never changed.
    const responses = Object.fromEntries(Object.entries(shared).map(([status, response]) => [status, { ...response }]));
    responses['200'] = {
      ...responses['200'],
      description: responses['200']?.description ?? 'The extracted data',
      content: jsonContent(endpoint.output_schema),
    };
    const path = `/v1/e/${endpoint.slug}`;
    const operation = {
      ...invokeOperation(endpoint.method, endpoint.param_schema, responses),
      summary: endpoint.name,
      description: [endpoint.description, 'Permission: `endpoints:invoke`.'].filter(Boolean).join('\n\n'),
      operationId: `invoke_${endpoint.slug.replaceAll('-', '_')}`,
    };
    declareOperationHeaders(path, endpoint.method.toLowerCase(), operation as never);
    paths[path] = { [endpoint.method.toLowerCase()]: operation };
  }
  return { ...document, paths };
}
