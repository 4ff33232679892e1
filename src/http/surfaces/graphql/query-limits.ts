import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { GraphQLError, Lexer, Source, TokenKind } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export interface QueryLimits {
  /** How deep selections, and lists and objects in arguments, may nest. */
  maxDepth: number;
  /** How many lexical tokens a document may hold. */
  maxTokens: number;
}

/**
 * A limit a query passed: 400 `validation_failed` naming the query, as every
 * surface answers bad input. Yoga answers the status `http` asks for (`spec:
 * false`: also to clients that accept only application/json, to whom it
 * answers the spec's own errors with 200) and leaves `http` out of the body.
 */
const limitError = (message: string) =>
  new GraphQLError(message, {
    extensions: { error: message, code: 'validation_failed', field: 'query', status: 400, http: { status: 400, spec: false } },
  });

const opening = new Set<string>([TokenKind.BRACE_L, TokenKind.BRACKET_L]);
const closing = new Set<string>([TokenKind.BRACE_R, TokenKind.BRACKET_R]);

/**
 * The limit a document passes, if any, found before it is parsed: the parser
 * recurses once per level, and a few thousand levels overflow its stack.
 * Read with graphql-js's own lexer, one token at a time (no recursion),
 * counting tokens as its parser does (`maxTokens`).
 */
function limitPassed(query: string, { maxDepth, maxTokens }: QueryLimits): GraphQLError | null {
  const lexer = new Lexer(new Source(query));
  let depth = 0;
  for (let token = lexer.advance(), count = 1; token.kind !== TokenKind.EOF; token = lexer.advance(), count++) {
    if (count > maxTokens) return limitError(`Query token limit of ${maxTokens} exceeded.`);
    if (opening.has(token.kind) && ++depth > maxDepth) {
      return limitError(`Query depth limit of ${maxDepth} exceeded: selections, lists and objects nest deeper than that.`);
    }
    if (closing.has(token.kind)) depth--;
  }
  return null;
}

/**
 * The limits every GraphQL document is held to: its nesting and tokens
 * before it is parsed, and when it is validated the depth of the selections
 * an operation reaches through its fragments (graphql-armor's max-depth; the
 * introspection schema's own nesting is not counted).
 */
export function queryLimitPlugins(limits: QueryLimits): Plugin[] {
  const beforeParsing: Plugin = {
    onParams: ({ params, setResult }) => {
      // A syntax error the lexer meets is left to the parse, which answers it as usual.
      let passed: GraphQLError | null = null;
      try {
        passed = params.query ? limitPassed(params.query, limits) : null;
      } catch {
        return;
      }
      if (passed) setResult({ errors: [passed] });
    },
  };
  const depthThroughFragments: Plugin = {
    onValidate: ({ addValidationRule }) =>
      addValidationRule(
        maxDepthRule({
          n: limits.maxDepth,
          // A fragment spread is no level of its own: the depth is the fields' nesting, as counted before parsing.
          flattenFragments: true,
          propagateOnRejection: false,
          onReject: [(context, error) => context?.reportError(limitError(error.message.replace(/^Syntax Error: /, '')))],
        }),
      ),
  };
  return [beforeParsing, depthThroughFragments];
}
