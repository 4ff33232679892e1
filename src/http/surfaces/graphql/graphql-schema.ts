import SchemaBuilder from '@pothos/core';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { toErrorResponse } from '../../../errors/error-response.ts';
import type { AppRouter } from '../../router.ts';
import type { RequestContext } from '../../../trpc/context.ts';
import { errorStyleOf } from '../../../trpc/error-styles.ts';
import { procedureCaller, procedureDefs } from '../../../trpc/procedure-defs.ts';
import { dateTimeScalar } from './date-time.ts';
import { nullsAsZodAccepts, ZodToGraphQL } from './zod-to-graphql.ts';

export interface GraphQLContext {
  /** The request's context for every procedure it calls; the endpoint puts its response headers (rate limit) on the answer. */
  requestContext: RequestContext;
}

/** `leads.bulkUpdate` -> `leadsBulkUpdate` */
const fieldName = (path: string) => path.replace(/\.([a-z])/gi, (_, c: string) => c.toUpperCase());
const typeName = (path: string) => fieldName(path).replace(/^./, (c) => c.toUpperCase());

/**
 * Derives the GraphQL schema from the router: each query procedure becomes
 * a Query field and each mutation a Mutation field, typed from its zod
 * input and output. Resolvers call the procedure through a tRPC caller with
 * the request's credential, so auth, validation, rate limit and credits are
 * the same as on REST and tRPC.
 */
export function buildGraphQLSchema(appRouter: AppRouter, onFault: (error: unknown) => void): GraphQLSchema {
  const builder = new SchemaBuilder<{
    Context: GraphQLContext;
    Scalars: { JSON: { Input: unknown; Output: unknown }; DateTime: { Input: string; Output: string | Date } };
  }>({});
  builder.scalarType('JSON', {
    description: 'Any JSON value.',
    serialize: (value) => value,
    parseValue: (value) => value,
  });
  builder.scalarType('DateTime', dateTimeScalar);
  builder.queryType({});
  builder.mutationType({});
  const types = new ZodToGraphQL(builder);
  const callProcedure = procedureCaller(appRouter);

  const call = async (path: string, input: unknown, context: GraphQLContext) => {
    try {
      return await callProcedure(context.requestContext, path, input);
    } catch (error) {
      const { status, body, headers } = toErrorResponse(error, errorStyleOf(error));
      if (status >= 500) onFault(error);
      Object.assign(context.requestContext.responseHeaders, headers);
      throw new GraphQLError(body.error, { extensions: { ...body, status } });
    }
  };

  const procedures = Object.entries(procedureDefs(appRouter)).filter(([, { type, output }]) => output && type !== 'subscription');
  for (const [path, { inputs, output }] of procedures) {
    types.typeNames.add(output!, `${typeName(path)}Result`, 'output');
    types.typeNames.addArgs(inputs[0], typeName(path));
  }
  for (const [path, { type, inputs, output: definedOutput, meta }] of procedures) {
    const output = definedOutput!;
    const name = fieldName(path);
    const resultType = types.output(output, `${typeName(path)}Result`);
    const takesInput = inputs[0] !== undefined && inputs[0].def.type !== 'void';
    const field = (t: any) =>
      t.field({
        ...types.fieldOptions(resultType, 'output'),
        description: meta?.openapi?.summary,
        args: types.args(inputs[0], typeName(path), t),
        resolve: (_root: unknown, args: Record<string, unknown>, context: GraphQLContext) =>
          call(path, takesInput ? nullsAsZodAccepts(inputs[0]!, args) : undefined, context),
      });
    if (type === 'query') builder.queryField(name, field);
    else builder.mutationField(name, field);
  }
  return builder.toSchema({ sortSchema: false });
}
