import { z } from 'zod';

type Def = { type: string; [key: string]: any };

export const def = (schema: z.ZodType): Def => (schema as any)._zod.def as Def;
export const registeredId = (schema: z.ZodType): string | undefined => z.globalRegistry.get(schema)?.id as string | undefined;
export const pascal = (text: string) => text.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_, __, c: string) => c.toUpperCase());

/**
 * The string values of an enum-like schema: a zod enum, or a union of enums
 * and string literals (`z.enum([...]) | z.literal('*')`); undefined for
 * anything else.
 */
export function enumValues(schema: z.ZodType): string[] | undefined {
  const d = def(schema);
  if (d.type === 'enum') return Object.values(d.entries as Record<string, string>);
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
export const valueSetKey = (values: string[]) => [...values].sort().join('\n');

interface Candidate {
  name: string;
  /** 0: the enum's own zod id; 1: a field of an output type with an id; 2: of an input type with an id; 3: any other place. */
  rank: number;
}

/**
 * Chooses the name of each enum before any type is built, so that the name
 * does not depend on which procedure happens to be built first: the enum's
 * own zod `id`, else its name as a field of a named output type
 * (`LeadStatus`), else of a named input, else the shortest place name. The
 * walk names places exactly as ZodToGraphQL does.
 */
export class EnumNames {
  private readonly best = new Map<string, Candidate>();

  add(schema: z.ZodType, name: string, io: 'input' | 'output', anchored = false): void {
    const d = def(schema);
    const values = enumValues(schema);
    if (values) {
      const id = registeredId(schema);
      this.offer(valueSetKey(values), { name: id ?? name, rank: id ? 0 : anchored ? (io === 'output' ? 1 : 2) : 3 });
      return;
    }
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
        return this.add(d.element, `${name}Item`, io, anchored);
      case 'object': {
        const id = registeredId(schema);
        const objectName = io === 'input' ? `${id ?? name}Input` : (id ?? name);
        for (const [key, field] of Object.entries(d.shape as Record<string, z.ZodType>))
          this.add(field, `${objectName}${pascal(key)}`, io, anchored || Boolean(id));
      }
    }
  }

  /** The arguments of a field are named as places of their own (`LeadsListStatus`). */
  addArgs(schema: z.ZodType | undefined, name: string): void {
    if (!schema || def(schema).type !== 'object') return;
    for (const [key, field] of Object.entries(def(schema).shape as Record<string, z.ZodType>))
      this.add(field, `${name}${pascal(key)}`, 'input');
  }

  nameOf(values: string[]): string | undefined {
    return this.best.get(valueSetKey(values))?.name;
  }

  private offer(key: string, candidate: Candidate) {
    const current = this.best.get(key);
    const better =
      !current ||
      candidate.rank < current.rank ||
      (candidate.rank === current.rank &&
        (candidate.name.length < current.name.length || (candidate.name.length === current.name.length && candidate.name < current.name)));
    if (better) this.best.set(key, candidate);
  }
}
