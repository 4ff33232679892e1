import type { z } from 'zod';
import type { AppRouter } from '../router.ts';
import type { Meta } from './init.ts';

export interface ProcedureDef {
  type: 'query' | 'mutation' | 'subscription';
  inputs: z.ZodType[];
  output?: z.ZodType;
  meta?: Meta;
}

/** The router's procedures by dotted path (`leads.list`), for the surfaces that derive from them. */
export function procedureDefs(appRouter: AppRouter): Record<string, ProcedureDef> {
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: ProcedureDef }>;
  return Object.fromEntries(Object.entries(procedures).map(([path, procedure]) => [path, procedure._def]));
}
