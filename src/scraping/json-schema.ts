import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { AppError } from '../errors/app-error.ts';

const draft07 = addFormats.default(new Ajv({ strict: false, allErrors: true }));
const draft2020 = addFormats.default(new Ajv2020({ strict: false, allErrors: true }));
/** For call parameters: defaults filled in, and (query strings carry text) "5" accepted where an integer is due. */
const bodyParameters = addFormats.default(new Ajv2020({ strict: false, useDefaults: true }));
const queryParameters = addFormats.default(new Ajv2020({ strict: false, useDefaults: true, coerceTypes: true }));

/**
 * Compiles a JSON Schema (2020-12 by default, draft-07 when it says so), or
 * answers 400 naming `field`. `parameters` compiles it for checking call
 * parameters instead of data.
 */
export function compileJsonSchema(schema: Record<string, unknown>, field: string, parameters?: 'query' | 'body'): ValidateFunction {
  const ajv = parameters
    ? parameters === 'query'
      ? queryParameters
      : bodyParameters
    : typeof schema.$schema === 'string' && schema.$schema.includes('draft-07')
      ? draft07
      : draft2020;
  try {
    return ajv.compile(schema);
  } catch (error) {
    throw new AppError('validation_failed', `${field}: not a valid JSON Schema (${(error as Error).message})`, { field });
  }
}

/** The first few validation errors, phrased for a person. */
export function describeSchemaErrors(validate: ValidateFunction): string {
  return (validate.errors ?? [])
    .slice(0, 5)
    .map((e) => `${e.instancePath || '(root)'} ${e.message}`)
    .join('; ');
}
