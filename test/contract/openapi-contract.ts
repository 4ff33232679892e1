import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * The OpenAPI contract every REST response of the integration suite is held
 * to: test/support/api-server.ts hands each response it receives to
 * `check`, which answers what is wrong with it (null when nothing is):
 * - a path that matches no documented path is not checked (undocumented by
 *   design: /graphql, /trpc, /healthz, /docs, /openapi.json, /metrics; and
 *   unknown routes);
 * - a documented path with a method it does not document must answer 405
 *   (or a 414) with an `Error` body: OpenAPI has no place for other methods;
 * - otherwise the status must be documented for that path and method, and
 *   the body must match its schema (ajv, JSON Schema 2020-12, over the served
 *   document's components).
 * Validators are compiled once per operation and status, and kept per
 * document text on globalThis, so a worker that runs several files compiles
 * each once.
 */

interface MediaType {
  schema?: unknown;
}
interface HeaderObject {
  required?: boolean;
  schema?: unknown;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
  headers?: Record<string, HeaderObject | { $ref: string }>;
}
interface Operation {
  responses?: Record<string, ResponseObject>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown>; headers?: Record<string, HeaderObject> };
}

interface Template {
  path: string;
  pattern: RegExp;
  literalSegments: number;
  operations: Record<string, Operation>;
}

export interface Contract {
  /** With `headers`, the response headers the document declares are checked too: each required one present, each present one matching its schema. */
  check(method: string, url: string, status: number, body: unknown, contentType: string, headers?: Headers): string | null;
}

const componentRef = '#/components/schemas/';
const componentsId = 'openapi-components.json';

/** `#/components/schemas/X` → the components added to ajv once, so every validator shares their compiled code. */
function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node).map(([key, value]) => [
      key,
      key === '$ref' && typeof value === 'string' && value.startsWith(componentRef)
        ? `${componentsId}#/$defs/${value.slice(componentRef.length)}`
        : rewriteRefs(value),
    ]),
  );
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function templatesOf(document: OpenApiDocument): Template[] {
  return Object.entries(document.paths).map(([path, operations]) => {
    const segments = path.split('/').filter(Boolean);
    const source = segments.map((segment) => (/^\{[^}]+\}$/.test(segment) ? '[^/]+' : escapeRegExp(segment))).join('/');
    return { path, pattern: new RegExp(`^/${source}$`), literalSegments: segments.filter((s) => !s.startsWith('{')).length, operations };
  });
}

const excerpt = (body: unknown) => {
  const text = typeof body === 'string' ? JSON.stringify(body) : (JSON.stringify(body) ?? String(body));
  return text.length > 600 ? `${text.slice(0, 600)}…` : text;
};

function createContract(document: OpenApiDocument): Contract {
  const ajv = addFormats.default(new Ajv2020({ strict: false, allErrors: true }));
  ajv.addSchema({ $id: componentsId, $defs: rewriteRefs(document.components?.schemas ?? {}) });
  const templates = templatesOf(document);
  const validators = new Map<string, ValidateFunction>();
  const validatorFor = (key: string, schema: unknown) => {
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile(rewriteRefs(schema) as object);
      validators.set(key, validate);
    }
    return validate;
  };
  const mismatch = (validate: ValidateFunction) =>
    (validate.errors ?? [])
      .slice(0, 8)
      .map(
        (e) =>
          `${e.instancePath || '(body)'} ${e.message}${e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''}`,
      )
      .join('; ');

  const headerObject = (header: HeaderObject | { $ref: string }): HeaderObject =>
    '$ref' in header ? (document.components?.headers?.[header.$ref.split('/').pop()!] ?? {}) : header;
  /** What is wrong with the declared headers of an answer; integers arrive as text, so they are compared as numbers. */
  const headerMismatch = (where: string, declared: ResponseObject['headers'], headers: Headers): string | null => {
    for (const [name, declaration] of Object.entries(declared ?? {})) {
      const { required, schema } = headerObject(declaration);
      const raw = headers.get(name);
      if (raw === null) {
        if (required) return `${where} requires the header ${name}, which is missing`;
        continue;
      }
      const type = (schema as { type?: string } | undefined)?.type;
      const value = type === 'integer' || type === 'number' ? (/^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw) : raw;
      const validate = validatorFor(`header ${JSON.stringify(schema)}`, schema ?? {});
      if (!validate(value)) return `${where}: the header ${name}: ${JSON.stringify(raw)} does not match its schema: ${mismatch(validate)}`;
    }
    return null;
  };

  return {
    check(method, url, status, body, contentType, headers) {
      const pathname = new URL(url, 'http://contract.test').pathname.replace(/\/+$/, '') || '/';
      const lower = method.toLowerCase();
      const matching = templates.filter((t) => t.pattern.test(pathname));
      if (!matching.length) return null;
      const request = `${method.toUpperCase()} ${pathname}`;
      // As the server routes: a path is the resource of its most specific template, whatever methods that one has.
      const resource = [...matching].sort((a, b) => b.literalSegments - a.literalSegments)[0]!;
      const template = resource.operations[lower] ? resource : undefined;
      if (!template) {
        if (status !== 405 && status !== 414) return `${request} → ${status}: no documented method there, so only 405 (or 414) is due`;
        const validate = validatorFor('Error', { $ref: `${componentRef}Error` });
        return validate(body)
          ? null
          : `${request} → ${status}: the body does not match components.schemas.Error: ${mismatch(validate)}; body: ${excerpt(body)}`;
      }
      const where = `paths["${template.path}"].${lower}`;
      const responses = template.operations[lower]!.responses ?? {};
      const response = responses[String(status)];
      if (!response)
        return `${request} → ${status}, which ${where} does not document (it documents ${Object.keys(responses).join(', ')}); body: ${excerpt(body)}`;
      const wrongHeader = headers && headerMismatch(`${request} → ${status}: ${where}.responses["${status}"]`, response.headers, headers);
      if (wrongHeader) return wrongHeader;
      const media = response.content?.['application/json'];
      // A download documented in its own media type (text/csv): its body is text, not held to a JSON schema.
      const mediaType = contentType.split(';', 1)[0]!.trim().toLowerCase();
      if (mediaType && mediaType !== 'application/json' && response.content?.[mediaType]) return null;
      if (!media)
        return body === ''
          ? null
          : `${request} → ${status}: ${where}.responses["${status}"] documents no JSON body, but one came: ${excerpt(body)}`;
      if (!/^application\/json\b/i.test(contentType))
        return `${request} → ${status}: Content-Type ${contentType || '(none)'}, where ${where} documents application/json`;
      const validate = validatorFor(`${lower} ${template.path} ${status}`, media.schema ?? {});
      return validate(body)
        ? null
        : `${request} → ${status}: the body does not match ${where}.responses["${status}"]: ${mismatch(validate)}; body: ${excerpt(body)}`;
    },
  };
}

const cacheKey = Symbol.for('leadops.openapi-contracts');
type Cache = Map<string, Contract>;

/** The contract for a served document's text, made once per worker. */
export function contractFor(documentText: string): Contract {
  const cache: Cache = ((globalThis as Record<symbol, unknown>)[cacheKey] as Cache | undefined) ?? new Map();
  (globalThis as Record<symbol, unknown>)[cacheKey] = cache;
  let contract = cache.get(documentText);
  if (!contract) {
    contract = createContract(JSON.parse(documentText) as OpenApiDocument);
    cache.set(documentText, contract);
  }
  return contract;
}

/** Fetches the server's /openapi.json (no key: the shared document) and answers its contract. */
export async function fetchContract(baseUrl: string): Promise<Contract> {
  const response = await fetch(`${baseUrl}/openapi.json`);
  if (!response.ok) throw new Error(`OpenAPI contract: GET /openapi.json answered ${response.status}`);
  // The servers entry names this server's port; the contract does not depend on it.
  const document = (await response.json()) as OpenApiDocument & { servers?: unknown };
  delete document.servers;
  return contractFor(JSON.stringify(document));
}
