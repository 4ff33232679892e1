/**
 * The layout's dependency rules (docs/architecture.md), checked in CI by `npm run lint:deps`:
 * one direction everywhere, so a newcomer can read any module without the rest.
 */
/**
 * The house in layers, top first (docs/architecture.md draws them). A module imports its own layer and the ones
 * below; an import of a layer above "runs back up" and fails lint:deps unless it is one of the few known ones
 * (.dependency-cruiser-known-violations.json, each explained in docs/architecture.md). `npm run -s lint:layers` lists
 * every import running back up, the known ones included, and counts them.
 */
const platform = 'auth|rate-limit|idempotency|events|jobs|llm';
const infrastructure = 'db|errors|net|secrets|metrics|json-schema|email-address';
const layers = [
  {
    name: 'entry',
    comment: "the processes: the service, the CLI, the worker (which assembles the domains' jobs)",
    path: '^(src/main\\.ts$|src/(cli|worker)/)',
  },
  { name: 'transports', comment: 'the HTTP server, the router assembly and every surface', path: '^src/http/' },
  {
    name: 'domains',
    comment: 'src/<domain>/: procedures, services, models',
    path: '^src/',
    pathNot: `^src/(main\\.ts$|cli/|worker/|http/|trpc/|web/|(${platform})/|(${infrastructure})/|[^/]+\\.ts$)`,
  },
  { name: 'kits', comment: 'apiProcedure and its context; the web kit domain routes are built with', path: '^src/(trpc|web)/' },
  {
    name: 'platform',
    comment: 'what every procedure passes through: credentials, limits, idempotency, events, the job queue',
    path: `^src/(${platform})/`,
  },
  {
    name: 'infrastructure',
    comment: 'the store, errors, settings, logs, the clock, the network guard, secrets, metrics, what an email address tells',
    path: `^src/((${infrastructure})/|(config|logger|clock|database)\\.ts$)`,
  },
  {
    name: 'contracts',
    comment: 'zod contracts, the address guard, the crawlers, the FerretDB build',
    path: '^(schema|outbound|scrapers|tools)/',
  },
];

/** One rule per pair of layers: the lower may not import the higher. */
const layerRules = layers.flatMap((lower, i) =>
  layers.slice(0, i).map((higher) => ({
    name: `back-up:${lower.name}->${higher.name}`,
    severity: 'error',
    comment: `${lower.name} (${lower.comment}) sits below ${higher.name} (${higher.comment}): the import runs back up.`,
    from: { path: lower.path, ...(lower.pathNot && { pathNot: lower.pathNot }) },
    to: { path: higher.path, ...(higher.pathNot && { pathNot: higher.pathNot }) },
  })),
);

const domains = layers.find((layer) => layer.name === 'domains');

/**
 * A domain is a module: code outside src/<domain>/ reaches it through its index.ts alone. The router assembly
 * (src/http/router.ts) maps each domain's router.ts besides: a router reaches apiProcedure, whose credential and plan
 * checks read the oauth and workspaces domains, and its procedures reach into other domains, so routers in the
 * indexes would close import cycles.
 */
const frontDoorRules = [
  {
    name: 'domain-front-door',
    severity: 'error',
    comment: "Another domain's modules are imported through its index.ts (what it offers the rest), never directly.",
    from: { path: '^(src/[^/]+/|src/main\\.ts$)', pathNot: '^src/(http/router|worker/(registry|subscribers))\\.ts$' },
    to: { path: domains.path, pathNot: [domains.pathNot, '^$1', '^src/[^/]+/index\\.ts$'] },
  },
  {
    name: 'router-assembly-maps-routers',
    severity: 'error',
    comment: "src/http/router.ts imports each domain's router.ts, and anything else of a domain through its index.ts.",
    from: { path: '^src/http/router\\.ts$' },
    to: { path: domains.path, pathNot: [domains.pathNot, '^src/[^/]+/(index|router)\\.ts$'] },
  },
  {
    name: 'worker-assembles-jobs',
    severity: 'error',
    comment:
      "The worker's registry and subscribers list import each domain's job handlers and event subscribers (src/<domain>/jobs/), and anything else of a domain through its index.ts.",
    from: { path: '^src/worker/(registry|subscribers)\\.ts$' },
    to: { path: domains.path, pathNot: [domains.pathNot, '^src/[^/]+/index\\.ts$', '^src/[^/]+/jobs/[^/]+\\.(handler|subscriber)\\.ts$'] },
  },
];

/**
 * Outreach's sub-folders, top first (docs/architecture.md draws them): a sub-folder imports the ones on the levels
 * below its own, never one on its level or above, so outreach reads one way, from its jobs down to its counters. The
 * delivery pipeline (plan, claim, send, settle, and the enrollments' moves) is one of them.
 */
const outreachLevels = [
  ['jobs'],
  ['stats', 'replies'],
  ['delivery'],
  ['campaigns'],
  ['inboxes', 'sequences'],
  ['campaign-record'],
  ['suppressions', 'counters'],
];
const outreachRules = [
  ...outreachLevels.flatMap((level, i) =>
    level.flatMap((folder) => {
      const notBelow = [...outreachLevels.slice(0, i).flat(), ...level.filter((peer) => peer !== folder)];
      if (!notBelow.length) return [];
      const below = outreachLevels.slice(i + 1).flat();
      return [
        {
          name: `outreach-one-way:${folder}`,
          severity: 'error',
          comment: `src/outreach/${folder}/ imports only the outreach sub-folders below its level (${below.join(', ') || 'none'}): the import runs against outreach's order.`,
          from: { path: `^src/outreach/${folder}/` },
          to: { path: `^src/outreach/(${notBelow.join('|')})/` },
        },
      ];
    }),
  ),
  {
    name: 'outreach-sub-folder-placed',
    severity: 'error',
    comment: 'Every outreach sub-folder has its place in the order (outreachLevels): a new one is placed there before it imports anything.',
    from: { path: '^src/outreach/[^/]+/', pathNot: `^src/outreach/(${outreachLevels.flat().join('|')})/` },
    to: {},
  },
];

module.exports = {
  forbidden: [
    ...layerRules,
    ...frontDoorRules,
    ...outreachRules,
    {
      name: 'libraries-public-api',
      severity: 'error',
      comment:
        "tRPC's unstable core is no API: the router, its procedures' meta and the caller are read through @trpc/server's public exports.",
      from: {},
      to: { path: 'node_modules/@trpc/server/dist/unstable-core-do-not-import' },
    },
    {
      name: 'transports-on-top',
      severity: 'error',
      comment:
        'src/http/ (server, router assembly, routes list, surfaces) is imported by nothing outside it but the entry point that starts it: domains build their HTTP routes from src/web/.',
      from: { pathNot: '^src/(http/|main\\.ts$)' },
      to: { path: '^src/http/' },
    },
    { name: 'no-cycles', severity: 'error', comment: 'No import cycles, type-only imports included.', from: {}, to: { circular: true } },
    {
      name: 'schema-is-contract',
      severity: 'error',
      comment: 'schema/ holds the zod contracts every surface derives from: it imports no implementation.',
      from: { path: '^schema/' },
      to: { path: '^(src|scrapers|outbound)/' },
    },
    {
      name: 'crawlers-apart',
      severity: 'error',
      comment: 'scrapers/ are crawler factories that return data: they use the address guard (outbound/) and nothing of the service.',
      from: { path: '^scrapers/' },
      to: { path: '^src/' },
    },
    {
      name: 'outbound-is-a-kit',
      severity: 'error',
      comment: 'outbound/ is the address guard alone: no settings, no service code.',
      from: { path: '^outbound/' },
      to: { path: '^(src|scrapers|schema)/' },
    },
    {
      name: 'jobs-beside-their-domain',
      severity: 'error',
      comment:
        "A job's contract (<name>.job.ts), its handler (<name>.handler.ts) and an event subscriber (<name>.subscriber.ts) stand in the jobs/ folder of the domain that owns the work: src/<domain>/jobs/.",
      from: { path: '\\.(job|handler|subscriber)\\.ts$', pathNot: '^src/[^/]+/jobs/[^/]+$' },
      to: {},
    },
    {
      name: 'handlers-only-from-the-registry',
      severity: 'error',
      comment:
        "Services enqueue through a job's contract and never see its handler: only the worker's registry (src/worker/registry.ts) imports handlers.",
      from: { pathNot: '^src/worker/registry\\.ts$' },
      to: { path: '\\.handler\\.ts$' },
    },
    {
      name: 'subscribers-only-from-the-worker',
      severity: 'error',
      comment: "Event subscribers are called by the event dispatcher: only the worker's list (src/worker/subscribers.ts) imports them.",
      from: { pathNot: '^src/worker/subscribers\\.ts$' },
      to: { path: '\\.subscriber\\.ts$' },
    },
    {
      name: 'job-contracts-enqueued-at-home',
      severity: 'error',
      comment:
        "A domain's job contracts are its own: its services and handlers enqueue through them; another domain calls that domain's service instead.",
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/[^/]+/jobs/[^/]+\\.job\\.ts$', pathNot: '^src/$1/jobs/' },
    },
    {
      name: 'fork-stands-alone',
      severity: 'error',
      comment:
        'tools/ferretdb/ builds the FerretDB fork (the service calls it through src/db/ferretdb-binary.ts): it imports nothing of the project.',
      from: { path: '^tools/' },
      to: { path: '^(src|scrapers|schema|outbound)/' },
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
