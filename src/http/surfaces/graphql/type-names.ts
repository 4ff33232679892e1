import { z } from 'zod';
import { inlineJsonSchema } from '../zod-json-schema.ts';

type Def = { type: string; [key: string]: any };

export const def = (schema: z.ZodType): Def => (schema as any)._zod.def as Def;
export const registeredId = (schema: z.ZodType): string | undefined => z.globalRegistry.get(schema)?.id as string | undefined;
export const pascal = (text: string) => text.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_, __, c: string) => c.toUpperCase());

/** The place name of a list's items: the list's name in the singular (`Leads` → `Lead`), else `…Item`. */
export function itemName(listName: string): string {
  if (/ies$/.test(listName)) return listName.replace(/ies$/, 'y');
  if (/(ss|x|ch|sh)es$/.test(listName)) return listName.replace(/es$/, '');
  if (/[^s]s$/.test(listName)) return listName.slice(0, -1);
  return `${listName}Item`;
}

/** Values an enum declares that only REST serves (`.meta({ 'x-rest-only-values': [...] })`): a derived surface leaves them out. */
const restOnlyValues = (schema: z.ZodType) => (z.globalRegistry.get(schema)?.['x-rest-only-values'] as string[] | undefined) ?? [];

/**
 * The string values of an enum-like schema as the derived surfaces offer
 * them: a zod enum, or a union of enums and string literals
 * (`z.enum([...]) | z.literal('*')`), less its REST-only values; undefined
 * for anything else.
 */
export function enumValues(schema: z.ZodType): string[] | undefined {
  const d = def(schema);
  if (d.type === 'enum') {
    const restOnly = restOnlyValues(schema);
    return Object.values(d.entries as Record<string, string>).filter((value) => !restOnly.includes(value));
  }
  if (d.type !== 'union') return undefined;
  const options = (d.options as z.ZodType[]).map((option) => {
    const od = def(option);
    if (od.type === 'enum') return { values: Object.values(od.entries as Record<string, string>), isEnum: true };
    if (od.type === 'literal' && (od.values as unknown[]).every((v) => typeof v === 'string'))
      return { values: od.values as string[], isEnum: false };
    return undefined;
  });
  if (options.some((o) => !o) || !options.some((o) => o!.isEnum)) return undefined;
  return [...new Set(options.flatMap((o) => o!.values))];
}

/** One GraphQL enum per set of values, whatever zod schemas declare it. */
const enumKey = (values: string[]) => `enum\n${[...values].sort().join('\n')}`;

const graphQLName = /^[_A-Za-z][_0-9A-Za-z]*$/;
const keyedRecords = new WeakMap<z.ZodType, z.ZodObject>();

/**
 * A record keyed by an enum has every key, each a valid GraphQL name: the
 * object with one field per key, else undefined (a free-form JSON value).
 */
export function recordAsObject(schema: z.ZodType): z.ZodObject | undefined {
  const d = def(schema);
  if (d.type !== 'record') return undefined;
  const keys = enumValues(d.keyType);
  if (!keys?.every((key) => graphQLName.test(key))) return undefined;
  let object = keyedRecords.get(schema);
  if (!object) {
    object = z.object(Object.fromEntries(keys.map((key) => [key, d.valueType as z.ZodType])));
    keyedRecords.set(schema, object);
  }
  return object;
}

/** The objects a union offers, when it offers only objects: an output union type. */
export function objectOptions(schema: z.ZodType): z.ZodType[] | undefined {
  const d = def(schema);
  if (d.type !== 'union') return undefined;
  const options = d.options as z.ZodType[];
  return options.every((option) => def(option).type === 'object') ? options : undefined;
}

const stripAnnotations = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(stripAnnotations);
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key]) => !['description', 'examples', 'default', 'id', 'title'].includes(key))
      .map(([key, value]) => [key, stripAnnotations(value)]),
  );
};
const shapeKeys = { input: new WeakMap<z.ZodType, string>(), output: new WeakMap<z.ZodType, string>() };

/**
 * The shape of an object schema as GraphQL sees it (its JSON Schema without
 * descriptions, examples or defaults): objects of one shape are one type.
 */
export function shapeKey(schema: z.ZodType, io: 'input' | 'output'): string {
  let key = shapeKeys[io].get(schema);
  if (key === undefined) {
    key = `${io}\n${JSON.stringify(stripAnnotations(inlineJsonSchema(schema, io)))}`;
    shapeKeys[io].set(schema, key);
  }
  return key;
}

interface Candidate {
  name: string;
  /**
   * 0: the type's own zod id; 1: a result wrapping one named type
   * (`{ lead }` → `LeadResult`); 2: a field of a type with an id
   * (`LeadStatus`); 3: any other place.
   */
  rank: number;
}

const better = (a: Candidate, b: Candidate) =>
  a.rank !== b.rank ? a.rank < b.rank : a.name.length !== b.name.length ? a.name.length < b.name.length : a.name < b.name;

/**
 * Names every enum (one per set of values) and every object type (one per
 * shape) before any type is built, so that a name does not depend on which
 * procedure happens to be built first: each gets its best candidate (see
 * Candidate), the next one where a better-placed type already holds that
 * name. Places are named as ZodToGraphQL walks them.
 */
export class TypeNames {
  private readonly candidates = new Map<string, Candidate[]>();
  private assigned: Map<string, string> | undefined;

  add(schema: z.ZodType, name: string, io: 'input' | 'output', anchored = false): void {
    const d = def(schema);
    const values = enumValues(schema);
    if (values) {
      const id = registeredId(schema);
      this.offer(enumKey(values), { name: id ?? name, rank: id ? 0 : anchored ? 2 : 3 });
      return;
    }
    const record = recordAsObject(schema);
    if (record) return this.add(record, name, io, anchored);
    switch (d.type) {
      case 'optional':
      case 'nullable':
      case 'default':
      case 'prefault':
      case 'readonly':
      case 'catch':
        return this.add(d.innerType, name, io, anchored);
      case 'pipe':
        return this.add(io === 'input' ? d.in : d.out, name, io, anchored);
      case 'array':
        return this.add(d.element, itemName(name), io, anchored);
      case 'union':
        if (io === 'output') objectOptions(schema)?.forEach((option, i) => this.add(option, `${name}Option${i + 1}`, io, anchored));
        return;
      case 'object': {
        const id = registeredId(schema);
        const suffix = io === 'input' ? 'Input' : '';
        this.offer(shapeKey(schema, io), { name: `${id ?? name}${suffix}`, rank: id ? 0 : anchored ? 2 : 3 });
        const wrapped = io === 'output' ? wrappedId(schema) : undefined;
        if (wrapped) this.offer(shapeKey(schema, io), { name: `${wrapped}Result`, rank: 1 });
        for (const [key, field] of Object.entries(d.shape as Record<string, z.ZodType>))
          this.add(field, `${id ?? name}${pascal(key)}`, io, anchored || Boolean(id));
      }
    }
  }

  /** The arguments of a field are named as places of their own (`LeadsListStatus`). */
  addArgs(schema: z.ZodType | undefined, name: string): void {
    if (!schema || def(schema).type !== 'object') return;
    for (const [key, field] of Object.entries(def(schema).shape as Record<string, z.ZodType>))
      this.add(field, `${name}${pascal(key)}`, 'input');
  }

  enumName(values: string[]): string | undefined {
    return this.names().get(enumKey(values));
  }

  objectName(schema: z.ZodType, io: 'input' | 'output'): string | undefined {
    return this.names().get(shapeKey(schema, io));
  }

  private offer(key: string, candidate: Candidate) {
    const known = this.candidates.get(key) ?? [];
    if (!known.some((c) => c.name === candidate.name && c.rank <= candidate.rank)) known.push(candidate);
    this.candidates.set(key, known);
  }

  private names(): Map<string, string> {
    if (this.assigned) return this.assigned;
    const sorted = [...this.candidates].map(([key, candidates]) => [key, [...candidates].sort((a, b) => (better(a, b) ? -1 : 1))] as const);
    sorted.sort(([, a], [, b]) => (better(a[0]!, b[0]!) ? -1 : 1));
    const taken = new Set<string>();
    this.assigned = new Map();
    for (const [key, candidates] of sorted) {
      let name = candidates.find((c) => !taken.has(c.name))?.name;
      for (let n = 2; !name; n++) if (!taken.has(`${candidates[0]!.name}${n}`)) name = `${candidates[0]!.name}${n}`;
      taken.add(name);
      this.assigned.set(key, name);
    }
    return this.assigned;
  }
}

/** The id of the one named object an output object wraps (`{ lead: Lead }` → `Lead`), if that is all it holds. */
function wrappedId(schema: z.ZodType): string | undefined {
  const fields = Object.values(def(schema).shape as Record<string, z.ZodType>);
  if (fields.length !== 1) return undefined;
  let inner = fields[0]!;
  while (['optional', 'nullable', 'default', 'readonly'].includes(def(inner).type)) inner = def(inner).innerType;
  return def(inner).type === 'object' ? registeredId(inner) : undefined;
}
