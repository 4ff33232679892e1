/**
 * CI's typed-client check (.ci/run): generates a client's types with
 * openapi-typescript from the document /openapi.json serves (built here the
 * way the route builds it, no server needed) into .tools/openapi-client/,
 * and with graphql-codegen from the schema /graphql serves (and the
 * operations of typed-graphql-operations.ts) into .tools/graphql-client/
 * (both gitignored, never committed), then type-checks the clients written
 * against them with the project's compiler options: typed-client-usage.ts,
 * a small openapi-fetch script (import and list leads with an
 * Idempotency-Key and the rate-limit headers, start and read a scrape run),
 * and typed-graphql-usage.ts (dates as DateTime, switches over the status
 * enums, the scrape start's union).
 *
 *   npx --no-install node test/contract/typed-client-check.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { codegen } from '@graphql-codegen/core';
import * as operationsPlugin from '@graphql-codegen/typescript-operations';
import { parse, printSchema } from 'graphql';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { buildGraphQLSchema } from '../../src/http/surfaces/graphql/graphql-schema.ts';
import { buildOpenApiDocument } from '../../src/http/surfaces/openapi.ts';
import { appRouter } from '../../src/http/router.ts';
import { operations } from './typed-graphql-operations.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const outDir = join(root, '.tools/openapi-client');
const documentFile = join(outDir, 'openapi.json');
const typesFile = join(outDir, 'api.d.ts');
const usageFile = join(root, 'test/contract/typed-client-usage.ts');
const graphqlDir = join(root, '.tools/graphql-client');
const graphqlTypesFile = join(graphqlDir, 'types.ts');
const graphqlUsageFile = join(root, 'test/contract/typed-graphql-usage.ts');

const documentText = JSON.stringify(buildOpenApiDocument(appRouter, 'http://localhost:3000'));
mkdirSync(outDir, { recursive: true });
writeFileSync(documentFile, documentText);
const types = astToString(await openapiTS(JSON.parse(documentText) as never));
writeFileSync(typesFile, types);
console.log(`typed client: ${typesFile} generated from the served document (${types.split('\n').length} lines)`);

// The schema as /graphql serves it; DateTime mapped to an ISO 8601 string type, so a date served as String would not fit.
const graphqlTypes = await codegen({
  schema: parse(printSchema(buildGraphQLSchema(appRouter, () => {}))),
  documents: [{ location: 'typed-graphql-operations.ts', document: parse(operations) }],
  filename: graphqlTypesFile,
  plugins: [{ typescriptOperations: {} }],
  pluginMap: { typescriptOperations: operationsPlugin },
  config: {
    enumsAsTypes: true,
    strictScalars: true,
    useTypeImports: true,
    scalars: { DateTime: '`${number}-${number}-${number}T${string}`', JSON: 'unknown' },
  },
});
mkdirSync(graphqlDir, { recursive: true });
writeFileSync(graphqlTypesFile, graphqlTypes);
console.log(`typed client: ${graphqlTypesFile} generated from the served GraphQL schema (${graphqlTypes.split('\n').length} lines)`);

const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
const program = ts.createProgram([usageFile, graphqlUsageFile], options);
// The usage scripts' imports of the types are @ts-ignore'd for the project's own typecheck (the files are generated): make sure they resolved here.
for (const [usage, generated] of [
  [usageFile, typesFile],
  [graphqlUsageFile, graphqlTypesFile],
]) {
  if (!program.getSourceFiles().some((file) => resolve(file.fileName) === generated)) {
    console.error(`typed client: ${usage} did not load ${generated}`);
    process.exit(1);
  }
}
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length) {
  console.error(
    ts.formatDiagnosticsWithColorAndContext(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => root,
      getNewLine: () => '\n',
    }),
  );
  console.error(`typed client: ${diagnostics.length} type error(s) in the client scripts`);
  process.exit(1);
}
console.log('typed client: the openapi-fetch script and the GraphQL client type-check against the generated types');
process.exit(0);
