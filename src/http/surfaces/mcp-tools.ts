import type { ProcedureDef } from '../../trpc/procedure-defs.ts';
import { firstSentence, listedSchema, outputSchemaWithinBudget, shortenRepeatedDescriptions } from './mcp-schemas.ts';
import { inlineJsonSchema } from './zod-json-schema.ts';

type Schema = { [key: string]: unknown };
type ObjectSchema = { type: 'object'; [key: string]: unknown };

export interface ToolShape {
  title?: string;
  description: string;
  inputSchema: ObjectSchema;
  outputSchema?: ObjectSchema;
  annotations: { readOnlyHint?: true; destructiveHint?: false; idempotentHint?: true };
}

const takesInput = (def: ProcedureDef) => def.inputs[0] !== undefined && def.inputs[0].def.type !== 'void';

/**
 * Open parts of a schema (`{}`: any value; `additionalProperties: {}`: any
 * keys) say so, as a description, not as a schema with no keyword at all;
 * an open object's extra keys are `additionalProperties: true`.
 */
function describeOpenSchemas(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(describeOpenSchemas);
  if (!node || typeof node !== 'object') return;
  const schema = node as Schema;
  const extra = schema.additionalProperties;
  if (extra && typeof extra === 'object' && Object.keys(extra).length === 0) {
    schema.additionalProperties = true;
    schema.description ??= 'An object with any keys.';
  }
  for (const [key, child] of Object.entries(schema)) {
    const isSchemaMap = key === 'properties' || key === 'patternProperties';
    if (isSchemaMap && child && typeof child === 'object') {
      for (const [name, sub] of Object.entries(child as Schema)) {
        if (sub && typeof sub === 'object' && Object.keys(sub).length === 0) (child as Schema)[name] = { description: 'Any JSON value.' };
      }
    }
    describeOpenSchemas(child);
  }
}

function objectSchema(schema: Schema): ObjectSchema {
  describeOpenSchemas(schema);
  const listed = listedSchema(schema) as Schema;
  shortenRepeatedDescriptions(listed);
  return { ...listed, type: 'object' };
}

/** Text as a sentence: a summary runs into the text after it only with a full stop. */
const sentence = (text: string) => (/[.!?]$/.test(text.trim()) ? text.trim() : `${text.trim()}.`);

/**
 * What MCP says about the tool of a procedure, all derived from it: its JSON
 * Schemas inlined (no `$ref`), its hints from its kind and HTTP method (a
 * query only reads; GET, PUT and DELETE are idempotent; a DELETE, or a
 * remove or cancel, destroys).
 */
export function toolShape(path: string, def: ProcedureDef): { shape: ToolShape; wrapsOutput: boolean } {
  const openapi = def.meta?.openapi;
  const method = openapi?.method ?? (def.type === 'query' ? 'GET' : 'POST');
  const readOnly = def.type === 'query';
  const destructive = !readOnly && (method === 'DELETE' || /\.(delete|remove|cancel)\w*$/.test(path));
  const description = [
    openapi?.summary,
    // Its first sentence: the OpenAPI document and /docs have the rest (the errors it answers, its limits, its REST
    // route). The list holds only the tools the credential may call, so their permissions go without saying.
    openapi?.description && firstSentence(openapi.description),
  ]
    .filter((text): text is string => Boolean(text))
    .map(sentence)
    .join(' ');
  const output = def.output && inlineJsonSchema(def.output, 'output');
  // A tool's output is an object: a procedure's other outputs (lists, unions) are wrapped as `{ result }`.
  const wrapped = output !== undefined && output.type !== 'object';
  const outputSchema =
    output && (wrapped ? { type: 'object', properties: { result: output }, required: ['result'], additionalProperties: false } : output);
  const shape: ToolShape = {
    ...(openapi?.summary && { title: openapi.summary }),
    description,
    inputSchema: takesInput(def)
      ? objectSchema(inlineJsonSchema(def.inputs[0]!, 'input'))
      : { type: 'object', properties: {}, additionalProperties: false },
    ...(outputSchema && { outputSchema: outputSchemaWithinBudget(objectSchema(outputSchema)) as ObjectSchema }),
    // The title is the tool's own `title` (annotations.title is its older place, which MCP clients read second).
    annotations: hints(readOnly, destructive, ['GET', 'PUT', 'DELETE'].includes(method)),
  };
  return { shape, wrapsOutput: wrapped };
}

/**
 * A tool's hints as MCP reads them, each given only where it differs from
 * MCP's default (not read-only, destructive, not idempotent); a read-only
 * tool says so alone, as the other two mean something only for a tool
 * that writes.
 */
function hints(readOnly: boolean, destructive: boolean, idempotent: boolean): ToolShape['annotations'] {
  if (readOnly) return { readOnlyHint: true };
  return { ...(!destructive && { destructiveHint: false as const }), ...(idempotent && { idempotentHint: true as const }) };
}

/** The tool result of a procedure's answer: the text for clients that read text, and structuredContent as outputSchema types it. */
export function toolResult({ shape, wrapsOutput }: { shape: ToolShape; wrapsOutput: boolean }, output: unknown) {
  // JSON round trip: structuredContent is what the client receives (dates as strings), so it matches the output schema.
  const json = JSON.parse(JSON.stringify(output ?? null)) as unknown;
  return {
    content: [{ type: 'text' as const, text: JSON.stringify(output) }],
    ...(shape.outputSchema && { structuredContent: (wrapsOutput ? { result: json } : json) as Record<string, unknown> }),
  };
}
