import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { AppError } from '../errors/app-error.ts';

// addUsedSchema: false, or a schema's `$id` would be taken for every later schema, any workspace's, with the same `$id`.
const shared = { strict: false, addUsedSchema: false } as const;
const draft07 = addFormats.default(new Ajv({ ...shared, allErrors: true }));
const draft2020 = addFormats.default(new Ajv2020({ ...shared, allErrors: true }));
/** For call parameters: defaults filled in, and (query strings carry text) "5" accepted where an integer is due. */
const bodyParameters = addFormats.default(new Ajv2020({ ...shared, useDefaults: true }));
const queryParameters = addFormats.default(new Ajv2020({ ...shared, useDefaults: true, coerceTypes: true }));

/**
 * Compiled validators by how they were compiled and the schema's text, most
 * recently used last. Stored schemas arrive as freshly parsed objects, which
 * ajv's own cache (by object) would compile, and keep, every time.
 */
const compiled = new Map<string, { ajv: Ajv; validate: ValidateFunction }>();
const maxCompiled = 500;

/**
 * Compiles a JSON Schema (2020-12 by default, draft-07 when it says so), or
 * answers 400 naming `field`. `parameters` compiles it for checking call
 * parameters instead of data.
 */
export function compileJsonSchema(schema: Record<string, unknown>, field: string, parameters?: 'query' | 'body'): ValidateFunction {
  const key = `${parameters ?? 'data'}\n${JSON.stringify(schema)}`;
  const known = compiled.get(key);
  if (known) {
    compiled.delete(key);
    compiled.set(key, known);
    return known.validate;
  }
  const ajv = parameters
    ? parameters === 'query'
      ? queryParameters
      : bodyParameters
    : typeof schema.$schema === 'string' && schema.$schema.includes('draft-07')
      ? draft07
      : draft2020;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (error) {
    throw new AppError('validation_failed', `${field}: not a valid JSON Schema (${(error as Error).message})`, { field });
  }
  compiled.set(key, { ajv, validate });
  if (compiled.size > maxCompiled) {
    const [oldestKey, oldest] = compiled.entries().next().value!;
    compiled.delete(oldestKey);
    oldest.ajv.removeSchema(oldest.validate.schema as Record<string, unknown>);
  }
  return validate;
}

/** The first few validation errors, phrased for a person. */
export function describeSchemaErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(root)'} ${e.message}`)
    .join('; ');
}
