/**
 * CI's typed-client check (.ci/run): generates a client's types with
 * openapi-typescript from the document /openapi.json serves (built here the
 * way the route builds it, no server needed) into .tools/openapi-client/
 * (gitignored, never committed), then type-checks typed-client-usage.ts, a
 * small openapi-fetch script (list leads, import leads, start and read a
 * scrape run), against those types with the project's compiler options.
 *
 *   npx --no-install node test/contract/typed-client-check.ts
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { buildOpenApiDocument } from '../../src/http/surfaces/openapi.ts';
import { appRouter } from '../../src/http/router.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const outDir = join(root, '.tools/openapi-client');
const documentFile = join(outDir, 'openapi.json');
const typesFile = join(outDir, 'api.d.ts');
const usageFile = join(root, 'test/contract/typed-client-usage.ts');

const documentText = JSON.stringify(buildOpenApiDocument(appRouter, 'http://localhost:3000'));
mkdirSync(outDir, { recursive: true });
writeFileSync(documentFile, documentText);
const types = astToString(await openapiTS(JSON.parse(documentText) as never));
writeFileSync(typesFile, types);
console.log(`typed client: ${typesFile} generated from the served document (${types.split('\n').length} lines)`);

const config = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
const program = ts.createProgram([usageFile], options);
// The usage script's import of the types is @ts-ignore'd for the project's own typecheck (the file is generated): make sure it resolved here.
if (!program.getSourceFiles().some((file) => resolve(file.fileName) === typesFile)) {
  console.error(`typed client: ${usageFile} did not load ${typesFile}`);
  process.exit(1);
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
  console.error(`typed client: ${diagnostics.length} type error(s) in the openapi-fetch script`);
  process.exit(1);
}
console.log('typed client: the openapi-fetch script type-checks against the generated types');
process.exit(0);
