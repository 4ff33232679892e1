import type { AnyProcedure, AnyRouter } from '@trpc/server';
import { getInputOutputParsers } from 'trpc-to-openapi';
import type { z } from 'zod';
import type { RequestContext } from './context.ts';
import { createCallerFactory, type Meta } from './init.ts';

export interface ProcedureDef {
  type: 'query' | 'mutation' | 'subscription';
  inputs: z.ZodType[];
  output?: z.ZodType;
  meta?: Meta;
}

/** What a router holds besides its procedures and sub-routers. */
const routerOwnKeys = new Set(['_def', 'createCaller']);

/**
 * The router's procedures by dotted path (`leads.list`), for the surfaces that derive from them: read from the
 * router as its type declares it (sub-routers and procedures by name, a procedure's `meta`, kind and input
 * parsers), the output parser through trpc-to-openapi, which reads it for its own document.
 */
export function procedureDefs(router: AnyRouter): Record<string, ProcedureDef> {
  const defs: Record<string, ProcedureDef> = {};
  const walk = (node: Record<string, unknown>, prefix: string) => {
    for (const [key, child] of Object.entries(node)) {
      if (routerOwnKeys.has(key)) continue;
      if (typeof child === 'function') {
        const procedure = child as AnyProcedure;
        defs[`${prefix}${key}`] = {
          type: procedure._def.type,
          inputs: procedure._def.inputs as z.ZodType[],
          output: getInputOutputParsers(procedure).outputParser as z.ZodType | undefined,
          meta: procedure.meta as Meta | undefined,
        };
      } else if (child && typeof child === 'object') walk(child as Record<string, unknown>, `${prefix}${key}.`);
    }
  };
  walk(router as unknown as Record<string, unknown>, '');
  return defs;
}

type Call = (input: unknown) => Promise<unknown>;

/**
 * Calls procedures by dotted path through a tRPC caller, so the surfaces
 * that route by path (REST, GraphQL) run the same middleware as tRPC.
 */
export function procedureCaller(appRouter: AnyRouter) {
  const createCaller = createCallerFactory(appRouter);
  return (ctx: RequestContext, path: string, input: unknown): Promise<unknown> => {
    const procedure = path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], createCaller(ctx)) as Call;
    return procedure(input);
  };
}
