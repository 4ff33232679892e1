import { createHash } from 'node:crypto';
import { AppError } from '../errors/app-error.ts';
import { compileJsonSchema } from '../json-schema/json-schema.ts';

const placeholders = (template: string) => [...template.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((m) => m[1]!);

/** The parameter schema must be an object schema that names every placeholder of the URL template. */
export function assertEndpointShape(paramSchema: Record<string, unknown>, urlTemplate: string) {
  if (paramSchema.type !== 'object')
    throw new AppError('validation_failed', 'param_schema: must be a JSON Schema of type object', { field: 'param_schema' });
  compileJsonSchema(paramSchema, 'param_schema', 'body');
  const properties = Object.keys((paramSchema.properties as Record<string, unknown> | undefined) ?? {});
  const unknown = placeholders(urlTemplate).find((name) => !properties.includes(name));
  if (unknown)
    throw new AppError('validation_failed', `url_template: {${unknown}} is not a property of param_schema`, { field: 'url_template' });
  let sample: URL;
  try {
    sample = new URL(urlTemplate.replace(/\{[A-Za-z_][A-Za-z0-9_]*\}/g, 'x'));
  } catch {
    throw new AppError('validation_failed', 'url_template: must be an absolute http or https URL', { field: 'url_template' });
  }
  if (sample.protocol !== 'http:' && sample.protocol !== 'https:') {
    throw new AppError('validation_failed', 'url_template: must be an absolute http or https URL', { field: 'url_template' });
  }
}

/**
 * Checks invocation parameters against the endpoint's schema (400 naming
 * the parameter); parameters the schema does not name are refused.
 * Returns them with defaults applied.
 */
export function validateParams(paramSchema: Record<string, unknown>, params: Record<string, unknown>, fromQuery: boolean) {
  const properties = Object.keys((paramSchema.properties as Record<string, unknown> | undefined) ?? {});
  const extra = Object.keys(params).find((name) => !properties.includes(name));
  if (extra) throw new AppError('validation_failed', `${extra}: not a parameter of this endpoint`, { field: extra });
  const values = structuredClone(params);
  const validate = compileJsonSchema(paramSchema, 'param_schema', fromQuery ? 'query' : 'body');
  if (!validate(values)) {
    const error = validate.errors![0]!;
    const field = error.instancePath.replace(/^\//, '').replaceAll('/', '.') || String(error.params.missingProperty ?? 'params');
    throw new AppError('validation_failed', `${field}: ${error.message}`, { field });
  }
  return values;
}

export function fillTemplate(template: string, params: Record<string, unknown>): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) =>
    params[name] === undefined ? '' : encodeURIComponent(String(params[name])),
  );
}

/** Same slug and same parameters, whatever their order: the same cache entry. */
export function cacheKeyFor(workspaceId: string, slug: string, params: Record<string, unknown>): string {
  const canonical = JSON.stringify(
    Object.keys(params)
      .sort()
      .map((key) => [key, params[key]]),
  );
  return createHash('sha256').update(`${workspaceId}\n${slug}\n${canonical}`).digest('hex');
}
