type Schema = { [key: string]: unknown };

/** How many bytes of JSON a tool's listed output schema may take: the deepest level of its structure that fits is listed. */
export const outputSchemaBudget = 200;

/** A description longer than this is listed as its first sentence (the OpenAPI document has it whole). */
const descriptionBudget = 100;

/** The first sentence of a text (the whole text when it has one sentence). */
export const firstSentence = (text: string) => /^.+?[.!?](?=\s|$)/s.exec(text)?.[0] ?? text;

/** Keywords the server checks that the list leaves out: the lengths of strings and arrays. */
const leftToServer = new Set(['minLength', 'maxLength', 'minItems', 'maxItems']);

/** Any JSON value, said with types (a schema with no type keyword reads as a mistake to schema checkers). */
const anyJsonValue = {
  anyOf: ['string', 'number', 'boolean', 'object', 'array', 'null'].map((type) => ({ type })),
};

const typeKeywords = ['type', 'anyOf', 'oneOf', 'allOf', 'enum', 'const', 'properties', 'items', '$ref', 'not'];
/** Keywords whose value is a map of names to schemas, or a list of schemas. */
const schemaMaps = new Set(['properties', 'patternProperties', '$defs']);
const schemaLists = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const schemaValues = new Set(['items', 'additionalProperties', 'propertyNames', 'not', 'contains']);

/**
 * A schema as the tool list gives it: the same rules, written the way MCP
 * clients check and small models read them:
 * - `type: [t, "null"]` as `anyOf` (each type its own branch, the
 *   keywords of its type on it);
 * - a schema that accepts any value says so with types;
 * - a `pattern` beside a `format` that says the same (uuid, date-time,
 *   email: zod writes both) and the safe-integer bounds of `z.int()` left out;
 * - an enum's REST-only values (`x-rest-only-values`) left out: a tool
 *   call cannot be answered with them;
 * - `examples` left out (the OpenAPI document has them), and so is
 *   `additionalProperties: false`: the server refuses an unknown key itself
 *   where the contract refuses one;
 * - the lengths of strings and arrays left out (a call past one is refused
 *   naming the field), and a description past 100 characters cut to its
 *   first sentence: a list of a hundred tools stays one a small model can
 *   read whole (the OpenAPI document has every rule and word).
 * The server validates every call with the full zod schema regardless.
 */
export function listedSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(listedSchema);
  if (!node || typeof node !== 'object') return node;
  const schema: Schema = {};
  const restOnly = (node as Schema)['x-rest-only-values'];
  for (const [key, value] of Object.entries(node as Schema)) {
    if (key === 'examples' || key === 'x-rest-only-values' || (key === 'additionalProperties' && value === false)) continue;
    if (leftToServer.has(key) && typeof value === 'number') continue;
    if (key === 'description' && typeof value === 'string' && value.length > descriptionBudget) {
      schema.description = firstSentence(value);
      continue;
    }
    if (key === 'enum' && Array.isArray(restOnly) && Array.isArray(value)) {
      schema.enum = value.filter((item) => !restOnly.includes(item));
      continue;
    }
    if (key === 'pattern' && 'format' in (node as Schema)) continue;
    if ((key === 'minimum' && value === Number.MIN_SAFE_INTEGER) || (key === 'maximum' && value === Number.MAX_SAFE_INTEGER)) continue;
    if (schemaMaps.has(key) && value && typeof value === 'object') {
      schema[key] = Object.fromEntries(Object.entries(value as Schema).map(([name, sub]) => [name, typedSchema(listedSchema(sub))]));
    } else if (schemaLists.has(key) && Array.isArray(value)) {
      schema[key] = value.map((sub) => typedSchema(listedSchema(sub)));
    } else if (schemaValues.has(key) && value && typeof value === 'object') {
      schema[key] = typedSchema(listedSchema(value));
    } else schema[key] = value;
  }
  return typeArrayAsAnyOf(schema);
}

/** A sub-schema with no type keyword accepts any value: said so with types, its description kept. */
function typedSchema(node: unknown): unknown {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return node;
  const schema = node as Schema;
  return typeKeywords.some((key) => key in schema) ? schema : { ...schema, ...anyJsonValue };
}

/** Keywords that apply to one JSON type only, which move onto that type's branch. */
const keywordsOf: Record<string, string[]> = {
  string: ['minLength', 'maxLength', 'pattern', 'format'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'minItems', 'maxItems', 'uniqueItems', 'prefixItems'],
  object: ['properties', 'required', 'additionalProperties', 'propertyNames', 'minProperties', 'maxProperties'],
};

function typeArrayAsAnyOf(schema: Schema): Schema {
  if (!Array.isArray(schema.type)) return schema;
  const { type: types, ...rest } = schema;
  const moved = new Set((types as string[]).flatMap((type) => keywordsOf[type] ?? []));
  const shared = Object.fromEntries(Object.entries(rest).filter(([key]) => !moved.has(key)));
  const branches = (types as string[]).map((type) => ({
    type,
    ...Object.fromEntries((keywordsOf[type] ?? []).filter((key) => key in rest).map((key) => [key, rest[key]])),
  }));
  return { ...shared, anyOf: branches };
}

/**
 * An output schema within the tool list's budget: the deepest level of its
 * structure whose JSON fits `outputSchemaBudget` bytes (at least its own
 * keys), without descriptions, and which keys are required at its top
 * only; below that level each value keeps just its type. A result still validates against it (it
 * only checks less); the OpenAPI document types every output in full.
 */
export function outputSchemaWithinBudget(schema: Schema): Schema {
  const withRequired = (shallow: Schema) => ({ ...shallow, ...(schema.required !== undefined && { required: schema.required }) });
  for (let depth = 6; depth > 0; depth--) {
    const shallow = withRequired(truncated(schema, depth) as Schema);
    if (JSON.stringify(shallow).length <= outputSchemaBudget) return shallow;
  }
  return withRequired(truncated(schema, 0) as Schema);
}

/** `schema` without descriptions and required keys, down to `depth` levels of properties. */
function truncated(node: unknown, depth: number): unknown {
  if (Array.isArray(node)) return node.map((item) => truncated(item, depth));
  if (!node || typeof node !== 'object') return node;
  const schema: Schema = {};
  for (const [key, value] of Object.entries(node as Schema)) {
    if (key === 'description' || key === 'required') continue;
    if (key === 'properties' && value && typeof value === 'object') {
      schema.properties = Object.fromEntries(
        Object.entries(value as Schema).map(([name, sub]) => [name, depth > 0 ? truncated(sub, depth - 1) : typeOnly(sub)]),
      );
    } else if (schemaValues.has(key) && value && typeof value === 'object') {
      schema[key] = depth > 0 ? truncated(value, depth) : typeOnly(value);
    } else if (schemaLists.has(key) && Array.isArray(value)) {
      schema[key] = value.map((sub) => truncated(sub, depth));
    } else schema[key] = value;
  }
  return schema;
}

/** A schema reduced to what type of value it holds. */
function typeOnly(node: unknown): unknown {
  if (!node || typeof node !== 'object') return node;
  const schema = node as Schema;
  if ('type' in schema) return { type: schema.type };
  if (Array.isArray(schema.anyOf)) return { anyOf: schema.anyOf.map(typeOnly) };
  if ('enum' in schema || 'const' in schema) return { type: typeof (schema.const ?? (schema.enum as unknown[])[0]) };
  return anyJsonValue;
}

/**
 * A description a tool's schema repeats (the same rules on a step and on its
 * variants) is given in full once; later it keeps its first sentence and
 * points back, in place.
 */
export function shortenRepeatedDescriptions(root: unknown): void {
  const seen = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!node || typeof node !== 'object') return;
    const schema = node as Schema;
    const text = schema.description;
    if (typeof text === 'string') {
      const first = firstSentence(text);
      if (seen.has(text) && first.length < text.length) schema.description = `${first} (The rest as above.)`;
      seen.add(text);
    }
    for (const value of Object.values(schema)) visit(value);
  };
  visit(root);
}
