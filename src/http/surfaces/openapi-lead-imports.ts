import type { OpenAPIObject } from 'trpc-to-openapi';
import { leadImportOutput, leadImportsOutput, startImportQuery } from '../../../schema/lead-imports.ts';
import { leadImportPath, leadImportRejectedPath, leadImportsPath, readImportAccess, startImportAccess } from '../../leads/index.ts';
import type { Meta } from '../../trpc/init.ts';
import { errorCodesOf, errorResponses } from './openapi-responses.ts';
import { inlineJsonSchema } from './zod-json-schema.ts';

type Documented = (operation: Record<string, unknown>, meta: Meta) => void;

const json = (schema: Record<string, unknown>) => ({ 'application/json': { schema } });
const idParameter = { in: 'path', name: 'id', required: true, schema: { type: 'string', format: 'uuid' }, description: "The import's id." };

/** The query parameters of a zod object, as OpenAPI parameters. */
function queryParameters(schema: typeof startImportQuery) {
  const { properties = {}, required = [] } = inlineJsonSchema(schema, 'input') as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  return Object.entries(properties).map(([name, property]) => ({
    in: 'query',
    name,
    required: required.includes(name),
    schema: property,
    description: property.description,
  }));
}

/**
 * The CSV import's routes (src/leads/csv-import.route.ts), beside the bridge like the lead export: the upload
 * (`text/csv` body, 202), the import and the list (JSON), and the rejected rows (`text/csv`).
 */
export function documentLeadImports(document: OpenAPIObject, documentAccess: Documented): void {
  // No Idempotency-Key here, so none of its refusals.
  const errors = (method: string, path: string, meta: Meta, takesInput: boolean) =>
    errorResponses(
      errorCodesOf({ method, path, meta, takesInput }).filter(
        (code) => code !== 'idempotency_in_progress' && code !== 'idempotency_key_reused',
      ),
    );
  const start = {
    operationId: 'leads-imports-start',
    tags: ['Leads'],
    summary: 'Import leads from a CSV file',
    description:
      "REST only. The body is the file (`Content-Type: text/csv`, UTF-8 with or without a byte-order mark; comma, semicolon or tab found in the header row; RFC 4180 quoting, line breaks inside quotes too; LF or CRLF), streamed, at most IMPORT_MAX_BYTES (413 beyond). Answers 202 at once; a background job stores the rows (poll `GET /api/leads/imports/{id}`). Columns not in `mapping` are matched by header (case, spaces and punctuation ignored): email, e-mail, email address; full name, name; first name + last name (joined); company, company name, organization; title, job title, position; website, company website, domain (reduced to the host without www.); linkedin, linkedin url; phone; location, city, country (joined). Other columns become text custom columns. Duplicates are decided as POST /api/leads decides them; rows past the plan's lead cap are rejected as `lead_limit`. An empty file, one that is not UTF-8 or not CSV, or a `mapping` naming a header the file lacks: 400. No Idempotency-Key: sending a file again imports it again (its rows then count as duplicates).",
    security: [{ Authorization: [] }],
    parameters: queryParameters(startImportQuery),
    requestBody: {
      required: true,
      content: {
        'text/csv': {
          schema: { type: 'string' },
          example: 'Email,First Name,Last Name,Company,Title\njane.doe@example.com,Jane,Doe,Example Pay GmbH,CTO\n',
        },
      },
    },
    responses: {
      '202': { description: 'The import, queued.', content: json(inlineJsonSchema(leadImportOutput, 'output')) },
      ...errors('POST', leadImportsPath, startImportAccess as Meta, true),
    },
  };
  documentAccess(start, startImportAccess as Meta);
  const list = {
    operationId: 'leads-imports-list',
    tags: ['Leads'],
    summary: 'List CSV imports',
    description: 'The last 100 imports, newest first.',
    security: [{ Authorization: [] }],
    responses: {
      '200': { description: 'The imports.', content: json(inlineJsonSchema(leadImportsOutput, 'output')) },
      ...errors('GET', leadImportsPath, readImportAccess as Meta, false),
    },
  };
  documentAccess(list, readImportAccess as Meta);
  const get = {
    operationId: 'leads-imports-get',
    tags: ['Leads'],
    summary: 'Get a CSV import',
    description: 'Its status and counts; `processed_rows` moves while it runs.',
    security: [{ Authorization: [] }],
    parameters: [idParameter],
    responses: {
      '200': { description: 'The import.', content: json(inlineJsonSchema(leadImportOutput, 'output')) },
      ...errors('GET', leadImportPath, readImportAccess as Meta, true),
    },
  };
  documentAccess(get, readImportAccess as Meta);
  const rejected = {
    operationId: 'leads-imports-rejected',
    tags: ['Leads'],
    summary: "Download a CSV import's rejected rows",
    description:
      "The rows the import did not store, in file order, as a `text/csv` attachment: the file's header, then an `error` column saying why. Cells starting with `=`, `+`, `-` or `@` are prefixed with a single quote so spreadsheet apps show them as text.",
    security: [{ Authorization: [] }],
    parameters: [idParameter],
    responses: {
      '200': {
        description: "The rejected rows, RFC 4180, the file's header plus `error`.",
        content: { 'text/csv': { schema: { type: 'string' } } },
      },
      ...errors('GET', leadImportRejectedPath, readImportAccess as Meta, true),
    },
  };
  documentAccess(rejected, readImportAccess as Meta);
  const paths = document.paths as Record<string, unknown>;
  paths[leadImportsPath] = { get: list, post: start };
  paths[leadImportPath] = { get };
  paths[leadImportRejectedPath] = { get: rejected };
}
