import { z } from 'zod';

type Node = Record<string, unknown>;

/**
 * JSON Schema of a zod schema, with its descriptions, inlined: zod puts
 * schemas that have an `id` in `$defs`, which would not resolve inside the
 * OpenAPI document (and which many MCP clients do not resolve), so each
 * `#/$defs/...` reference is replaced by its schema. Enum-keyed records get
 * their keys as properties (typeEnumKeyedRecords).
 */
export function inlineJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Node {
  const { $schema: _dialect, $defs = {}, ...root } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Node;
  const defs = $defs as Node;
  const inline = (node: unknown, seen: string[]): unknown => {
    if (Array.isArray(node)) return node.map((item) => inline(item, seen));
    if (!node || typeof node !== 'object') return node;
    const { $ref, ...rest } = node as Node;
    const entries = Object.entries(rest).map(([key, value]) => [key, inline(value, seen)]);
    if (typeof $ref !== 'string' || !$ref.startsWith('#/$defs/'))
      return Object.fromEntries($ref === undefined ? entries : [['$ref', $ref], ...entries]);
    const name = $ref.slice('#/$defs/'.length);
    if (seen.includes(name)) throw new Error(`inlineJsonSchema: ${name} refers to itself`);
    return { ...(inline(defs[name], [...seen, name]) as Node), ...Object.fromEntries(entries) };
  };
  const inlined = inline(root, []) as Node;
  typeEnumKeyedRecords(inlined);
  return inlined;
}

/**
 * A record keyed by an enum (`z.record(z.enum([...]), v)`) has every key, but
 * zod writes it as `propertyNames` + `additionalProperties` + `required`, so
 * the required keys are defined nowhere and generated clients lose them. Each
 * key is added as a property with the value schema, in place, throughout.
 */
export function typeEnumKeyedRecords(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(typeEnumKeyedRecords);
  if (!node || typeof node !== 'object') return;
  const record = node as Node;
  const keys = (record.propertyNames as Node | undefined)?.enum;
  const value = record.additionalProperties;
  if (Array.isArray(keys) && value && typeof value === 'object' && !record.properties) {
    record.properties = Object.fromEntries(keys.map((key: string) => [key, structuredClone(value)]));
  }
  for (const child of Object.values(record)) typeEnumKeyedRecords(child);
}
