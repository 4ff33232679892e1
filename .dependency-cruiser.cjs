/**
 * The layout's dependency rules (docs/architecture.md), checked in CI by `npm run lint:deps`:
 * one direction everywhere, so a newcomer can read any module without the rest.
 */
module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', comment: 'No import cycles, type-only imports included.', from: {}, to: { circular: true } },
    {
      name: 'schema-is-contract',
      severity: 'error',
      comment: 'schema/ holds the zod contracts every surface derives from: it imports no implementation.',
      from: { path: '^schema/' },
      to: { path: '^(src|jobs|scrapers|outbound)/' },
    },
    {
      name: 'crawlers-apart',
      severity: 'error',
      comment: 'scrapers/ are crawler factories that return data: they use the address guard (outbound/) and nothing of the service.',
      from: { path: '^scrapers/' },
      to: { path: '^(src|jobs)/' },
    },
    {
      name: 'outbound-is-a-kit',
      severity: 'error',
      comment: 'outbound/ is the address guard alone: no settings, no service code.',
      from: { path: '^outbound/' },
      to: { path: '^(src|jobs|scrapers|schema)/' },
    },
    {
      name: 'handlers-only-from-the-worker',
      severity: 'error',
      comment: 'Services enqueue through job contracts (src/jobs/); only the worker (and main.ts, which starts it) imports jobs/.',
      from: { path: '^src/', pathNot: '^src/main\\.ts$' },
      to: { path: '^jobs/' },
    },
    {
      name: 'fork-stands-alone',
      severity: 'error',
      comment:
        'tools/ferretdb/ builds the FerretDB fork (the service calls it through src/db/ferretdb-binary.ts): it imports nothing of the project.',
      from: { path: '^tools/' },
      to: { path: '^(src|jobs|scrapers|schema|outbound)/' },
    },
    {
      name: 'services-below-surfaces',
      severity: 'error',
      comment: 'A domain service knows nothing of HTTP: the surfaces call services, never the other way.',
      from: { path: '^src/.+\\.service\\.ts$' },
      to: { path: '^src/http/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
