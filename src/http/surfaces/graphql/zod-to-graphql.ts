import type { z } from 'zod';
import { def, enumValues, itemName, objectOptions, pascal, recordAsObject, registeredId, TypeNames } from './type-names.ts';

type Builder = PothosSchemaTypes.SchemaBuilder<any>;
type TypeRef = any;

/** A field's GraphQL type: the named type, whether it may be null, and list nesting. */
interface Resolved {
  ref: TypeRef;
  nullable: boolean;
  list?: { itemNullable: boolean };
}

const enumValueName = (value: string) => {
  if (value === '*') return 'all';
  const name = value.replace(/[^A-Za-z0-9_]/g, '_');
  return /^[A-Za-z_]/.test(name) ? name : `_${name}`;
};
const isInt = (schema: z.ZodType) => ['safeint', 'int32', 'uint32'].includes((schema as any).format);
/** Identifiers (`id`, `ids`, `scraperId`, `webhook_id`, ...) are GraphQL IDs. */
const isIdentifier = (key: string) => /^ids?$|[a-z]Ids?$|_ids?$/.test(key);
const asIdWhereNamed = (key: string, resolved: Resolved): Resolved =>
  resolved.ref === 'String' && isIdentifier(key) ? { ...resolved, ref: 'ID' } : resolved;

/**
 * Turns zod schemas into Pothos types: objects become object (or input)
 * types, one per shape, named as TypeNames chose (by their `.meta({ id })`
 * or their place); enums become enums; ISO date-times the DateTime scalar;
 * a record keyed by an enum an object with a field per key; a union of
 * objects (output) a union; other records and free-form values the JSON
 * scalar. Every field keeps its `.describe()` text. No GraphQL type is
 * written by hand.
 */
export class ZodToGraphQL {
  private readonly types = new Map<string, TypeRef>();
  private readonly builder: Builder;
  /** Fill it with every schema (TypeNames.add, addArgs) before the first type is built. */
  readonly typeNames = new TypeNames();

  constructor(builder: unknown) {
    this.builder = builder as unknown as Builder;
  }

  output(schema: z.ZodType, name: string): Resolved {
    return this.resolve(schema, name, 'output');
  }

  /** The arguments of a field, from a procedure's object input. */
  args(schema: z.ZodType | undefined, name: string, t: any): Record<string, any> {
    if (!schema || def(schema).type !== 'object') return {};
    return Object.fromEntries(
      Object.entries(def(schema).shape as Record<string, z.ZodType>).map(([key, field]) => {
        const resolved = asIdWhereNamed(key, this.resolve(field, `${name}${pascal(key)}`, 'input'));
        return [key, t.arg({ ...this.fieldOptions(resolved, 'input'), description: field.description })];
      }),
    );
  }

  fieldOptions(resolved: Resolved, io: 'input' | 'output') {
    const type = resolved.list ? [resolved.ref] : resolved.ref;
    if (io === 'input') {
      return { type, required: resolved.list ? { list: !resolved.nullable, items: !resolved.list.itemNullable } : !resolved.nullable };
    }
    return { type, nullable: resolved.list ? { list: resolved.nullable, items: resolved.list.itemNullable } : resolved.nullable };
  }

  private resolve(schema: z.ZodType, name: string, io: 'input' | 'output'): Resolved {
    const d = def(schema);
    if (enumValues(schema)) return { ref: this.enumType(schema, name), nullable: false };
    const record = recordAsObject(schema);
    if (record) return { ref: this.objectType(record, name, io), nullable: false };
    switch (d.type) {
      case 'optional':
      case 'nullable':
        return { ...this.resolve(d.innerType, name, io), nullable: true };
      case 'default':
      case 'prefault':
        // A defaulted field may be omitted on input; on output it is always present.
        return { ...this.resolve(d.innerType, name, io), nullable: io === 'input' };
      case 'readonly':
      case 'catch':
        return this.resolve(d.innerType, name, io);
      case 'pipe':
        return this.resolve(io === 'input' ? d.in : d.out, name, io);
      case 'array': {
        const item = this.resolve(d.element, itemName(name), io);
        return { ref: item.ref, nullable: false, list: { itemNullable: item.nullable } };
      }
      case 'string':
        return { ref: (schema as { format?: string }).format === 'datetime' ? 'DateTime' : 'String', nullable: false };
      case 'number':
        return { ref: isInt(schema) ? 'Int' : 'Float', nullable: false };
      case 'boolean':
        return { ref: 'Boolean', nullable: false };
      case 'literal':
        return {
          ref: typeof d.values[0] === 'number' ? 'Float' : typeof d.values[0] === 'boolean' ? 'Boolean' : 'String',
          nullable: false,
        };
      case 'union': {
        const objects = io === 'output' ? objectOptions(schema) : undefined;
        if (objects) return { ref: this.unionType(objects, name), nullable: false };
        // Classified without building types: a union's options get no GraphQL type of their own.
        const options = (d.options as z.ZodType[]).map(scalarKind);
        const nullable = options.some((o) => o.nullable);
        return { ref: options.every((o) => o.kind === 'string') ? 'String' : 'JSON', nullable };
      }
      case 'object':
        return { ref: this.objectType(schema, name, io), nullable: false };
      default:
        // records, unknown, any and other free-form values
        return { ref: 'JSON', nullable: false };
    }
  }

  /** One enum per set of values, named as TypeNames chose. */
  private enumType(schema: z.ZodType, fallback: string): TypeRef {
    const values = enumValues(schema)!;
    const name = this.typeNames.enumName(values) ?? registeredId(schema) ?? fallback;
    return this.once(name, () =>
      this.builder.enumType(name, {
        description: schema.description,
        values: Object.fromEntries(values.map((v) => [enumValueName(v), { value: v }])),
      }),
    );
  }

  /** A union of object types: a value is of the first option whose zod schema accepts it. */
  private unionType(options: z.ZodType[], fallback: string): TypeRef {
    const name = fallback;
    return this.once(name, () => {
      const members = options.map((option, i) => ({ option, ref: this.objectType(option, `${fallback}Option${i + 1}`, 'output') }));
      return this.builder.unionType(name, {
        types: members.map(({ ref }) => ref),
        resolveType: (value: unknown) => (members.find(({ option }) => option.safeParse(value).success) ?? members.at(-1)!).ref,
      });
    });
  }

  /** An object type (output) or input object type (input) with one field per key of the zod object, one per shape. */
  private objectType(schema: z.ZodType, fallback: string, io: 'input' | 'output'): TypeRef {
    const name =
      this.typeNames.objectName(schema, io) ??
      (io === 'input' ? `${registeredId(schema) ?? fallback}Input` : (registeredId(schema) ?? fallback));
    return this.once(name, () => {
      const ref =
        io === 'input' ? this.builder.inputRef<Record<string, unknown>>(name) : this.builder.objectRef<Record<string, unknown>>(name);
      const shape = def(schema).shape as Record<string, z.ZodType>;
      ref.implement({
        description: schema.description,
        fields: (t: any) =>
          Object.fromEntries(
            Object.entries(shape).map(([key, field]) => {
              const options = {
                ...this.fieldOptions(asIdWhereNamed(key, this.resolve(field, `${name}${pascal(key)}`, io)), io),
                description: field.description,
              };
              return [key, t.field(io === 'input' ? options : { ...options, resolve: (parent: any) => parent[key] })];
            }),
          ),
      });
      return ref;
    });
  }

  private once(name: string, create: () => TypeRef): TypeRef {
    if (!this.types.has(name)) this.types.set(name, create());
    return this.types.get(name);
  }
}

/** A union option's kind, seen through optional and nullable wrappers: a plain string (or string literal), or anything else. */
function scalarKind(schema: z.ZodType): { kind: 'string' | 'other'; nullable: boolean } {
  const d = def(schema);
  if (d.type === 'optional' || d.type === 'nullable') return { ...scalarKind(d.innerType), nullable: true };
  if (d.type === 'null') return { kind: 'string', nullable: true };
  const isString = d.type === 'string' || (d.type === 'literal' && typeof d.values[0] === 'string') || d.type === 'enum';
  return { kind: isString ? 'string' : 'other', nullable: false };
}

/**
 * Gives GraphQL nulls their REST meaning: a null stays null where the zod
 * schema at that position is nullable and becomes absent where it is not
 * (GraphQL clients send null for unset variables), recursively through
 * input objects and list items; free-form (JSON) values pass unchanged.
 */
export function nullsAsZodAccepts(schema: z.ZodType, value: unknown): unknown {
  let d = def(schema);
  let nullable = false;
  for (;;) {
    if (d.type === 'nullable' || d.type === 'null') nullable = true;
    if (d.type === 'union') nullable ||= (d.options as z.ZodType[]).some((o) => nullsAsZodAccepts(o, null) === null);
    if (['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch'].includes(d.type)) d = def(d.innerType);
    else if (d.type === 'pipe') d = def(d.in);
    else break;
  }
  if (value === null) return nullable ? null : undefined;
  if (d.type === 'array' && Array.isArray(value)) return value.map((item) => nullsAsZodAccepts(d.element, item));
  if (d.type === 'object' && typeof value === 'object' && value !== null) {
    const shape = d.shape as Record<string, z.ZodType>;
    return Object.fromEntries(
      Object.entries(value)
        .map(([key, v]) => [key, shape[key] ? nullsAsZodAccepts(shape[key], v) : v] as const)
        .filter(([, v]) => v !== undefined),
    );
  }
  return value;
}
