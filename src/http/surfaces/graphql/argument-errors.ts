import { GraphQLError, visit, type ASTNode, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';

const within = (inner: ASTNode, outer: ASTNode) =>
  Boolean(inner.loc && outer.loc && outer.loc.start <= inner.loc.start && inner.loc.end <= outer.loc.end);

/** The argument (and the input fields within it, dotted) whose value a validation error points at. */
function fieldOf(error: GraphQLError, document: DocumentNode): string | undefined {
  const node = error.nodes?.[0];
  if (!node) return undefined;
  let field: string | undefined;
  visit(document, {
    Argument(argument) {
      if (!within(node, argument)) return false;
      const names = [argument.name.value];
      visit(argument.value, {
        ObjectField(objectField) {
          if (!within(node, objectField)) return false;
          names.push(objectField.name.value);
          return undefined;
        },
      });
      field = names.join('.');
      return false;
    },
  });
  return field;
}

/**
 * An argument GraphQL refuses while validating the query (a value not of its
 * type, such as an enum value the enum does not offer) is answered as every
 * surface answers bad input: `validation_failed` naming the field.
 */
export const argumentErrorsPlugin: Plugin = {
  onValidate:
    ({ params }) =>
    ({ result, setResult }) => {
      if (!result.length) return;
      setResult(
        result.map((error) => {
          const field = error.extensions?.code === undefined ? fieldOf(error, params.documentAST) : undefined;
          if (!field) return error;
          return new GraphQLError(error.message, {
            nodes: error.nodes,
            source: error.source,
            positions: error.positions,
            originalError: error.originalError,
            extensions: { ...error.extensions, error: error.message, code: 'validation_failed', field },
          });
        }),
      );
    },
};
