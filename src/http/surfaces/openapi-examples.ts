import type { z } from 'zod';

type Node = Record<string, unknown>;
type Body = { required?: boolean; content?: Record<string, { schema?: Node; example?: unknown }> };

/** The names in a path template, e.g. `id` in /api/leads/{id}: the URL carries them, so a body never does. */
export const pathParameterNames = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);

/**
 * The first `.meta({ examples })` of a procedure's input (schema/*.ts), so
 * the contract and the docs share one example. Examples hold the whole
 * input, path parameters included; the body's example leaves those out.
 */
export function bodyExample(input: z.ZodType | undefined, pathParameters: string[]): Node | undefined {
  const example = (input?.meta()?.examples as Node[] | undefined)?.[0];
  if (!example) return undefined;
  return Object.fromEntries(Object.entries(example).filter(([name]) => !pathParameters.includes(name)));
}

/**
 * Sets the JSON body's `example`, what Swagger UI's "Try it out" sends
 * (without one it makes up values the API refuses: a random string as an
 * email, a zero UUID as an id). The schema's own `examples` are dropped: they
 * are the whole input, path parameters included.
 */
export function setBodyExample(requestBody: unknown, example: unknown): void {
  const media = (requestBody as Body | undefined)?.content?.['application/json'];
  if (!media || example === undefined) return;
  media.example = example;
  if (media.schema) delete media.schema.examples;
}

/** A JSON body schema without the path parameters (the bridge takes them from the URL); undefined when nothing is left. */
export function withoutPathParameters(schema: Node, pathParameters: string[]): Node | undefined {
  const properties = Object.fromEntries(
    Object.entries((schema.properties as Node | undefined) ?? {}).filter(([name]) => !pathParameters.includes(name)),
  );
  if (Object.keys(properties).length === 0) return undefined;
  const { required = [], ...rest } = schema as Node & { required?: string[] };
  const stillRequired = required.filter((name) => !pathParameters.includes(name));
  return { ...rest, properties, ...(stillRequired.length > 0 && { required: stillRequired }) };
}
