import type { z } from 'zod';

type Def = { type: string; innerType?: z.ZodType; element?: z.ZodType; shape?: Record<string, z.ZodType>; in?: z.ZodType };

const def = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The scalar kind a query value should become: looks through optional/default/nullable wrappers. */
function kindOf(schema: z.ZodType | undefined): string | undefined {
  let current = schema;
  while (current) {
    const d = def(current);
    if (d.type === 'optional' || d.type === 'default' || d.type === 'nullable' || d.type === 'prefault' || d.type === 'readonly')
      current = d.innerType;
    else if (d.type === 'pipe') current = d.in;
    else return d.type;
  }
  return undefined;
}

function elementOf(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema;
  while (current) {
    const d = def(current);
    if (d.type === 'array') return d.element;
    current = d.innerType;
  }
  return undefined;
}

function convert(value: string, kind: string | undefined): unknown {
  if (kind === 'number' && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (kind === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/**
 * Turns a query string into procedure input by the input schema's field
 * types: numeric and boolean strings become numbers and booleans, repeated
 * keys arrays. Anything that does not convert stays a string, so the
 * schema's own check names the field. The schema itself is never changed.
 */
export function queryInput(schema: z.ZodType | undefined, params: URLSearchParams): Record<string, unknown> {
  const shape = (schema && kindOf(schema) === 'object' ? findShape(schema) : undefined) ?? {};
  const input: Record<string, unknown> = {};
  for (const key of new Set(params.keys())) {
    const field = shape[key];
    const values = params.getAll(key);
    if (kindOf(field) === 'array') {
      const itemKind = kindOf(elementOf(field));
      input[key] = values.flatMap((v) => v.split(',')).map((v) => convert(v, itemKind));
    } else {
      input[key] = convert(values[values.length - 1]!, kindOf(field));
    }
  }
  return input;
}

function findShape(schema: z.ZodType): Record<string, z.ZodType> | undefined {
  let current: z.ZodType | undefined = schema;
  while (current) {
    const d = def(current);
    if (d.type === 'object') return d.shape;
    current = d.type === 'pipe' ? d.in : d.innerType;
  }
  return undefined;
}
