import type { AnyRouter } from '@trpc/server';
import type { z } from 'zod';
import type { RequestContext } from './context.ts';
import { createCallerFactory, type Meta } from './init.ts';

export interface ProcedureDef {
  type: 'query' | 'mutation' | 'subscription';
  inputs: z.ZodType[];
  output?: z.ZodType;
  meta?: Meta;
}

/** The router's procedures by dotted path (`leads.list`), for the surfaces that derive from them. */
export function procedureDefs(appRouter: AnyRouter): Record<string, ProcedureDef> {
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: ProcedureDef }>;
  return Object.fromEntries(Object.entries(procedures).map(([path, procedure]) => [path, procedure._def]));
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
