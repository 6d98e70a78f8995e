/**
 * The layers of docs/architecture.md, enforced by `npm run lint:deps` (part of `npm test`).
 *
 * Server (apps/server/src), lowest first: the toolkit (config, db, lib, http, jobs, mail, services.ts), then the
 * features in the order below, then the composition root (app/) and the CLI (cli/). A feature may import the toolkit
 * and the features listed before it, never one listed after it. A new feature goes into the list where its imports
 * allow, with a line in docs/architecture.md saying why.
 */
const serverFeatures = [
  // Leaves: import no feature.
  'system',
  'files',
  'dev-mailbox',
  'domains',
  'senders',
  'categories',
  'suppressions',
  'consent',
  'preferences',
  'bounces',
  'metrics',
  'tags',
  'folders',
  // Account.
  'billing',
  'ai-writer',
  'accounts',
  'integrations',
  'auth',
  'team',
  'marketplace',
  // Audience.
  'fields',
  'people',
  'segments',
  'bulk',
  'imports',
  'events',
  'site-tracking',
  'tracking',
  // Sending.
  'emails',
  'send-times',
  'deliveries',
  'transactional',
  'confirmations',
  'broadcasts',
  'flows',
  'dashboard',
  // A person's export and erase: reads and erases the rows of every feature above (people, segments, flows, sends).
  'privacy',
  // Reads only its own table; the route layer (http/audit.ts) writes it.
  'audit-log',
  // The Segment-compatible Tracking API: the events ingest, people and fields (last, so that it renumbers nothing).
  'tracking-api',
];

const server = '^apps/server/src/';
const features = `${server}features/`;
const listed = `${features}(${serverFeatures.join('|')})/`;

/** One rule per feature: nothing listed after it. */
const featureOrder = serverFeatures.slice(0, -1).map((feature, index) => ({
  name: `feature-order/${feature}`,
  severity: 'error',
  comment: `features/${feature} may import only the features listed before it (docs/architecture.md, .dependency-cruiser.cjs)`,
  from: { path: `${features}${feature}/` },
  to: { path: `${features}(${serverFeatures.slice(index + 1).join('|')})/` },
}));

/** The web app (apps/web/src): app/ on top, then features/, then ui/ and lib/. */
const web = '^apps/web/src/';
const webRules = [
  {
    name: 'web/ui-and-lib-below-features',
    severity: 'error',
    comment:
      'apps/web/src/ui and lib are used by the features and the app shell; they import neither (docs/architecture.md)',
    from: { path: `${web}(ui|lib)/` },
    to: { path: `${web}(features|app)/` },
  },
  {
    name: 'web/features-below-app',
    severity: 'error',
    comment:
      'apps/web/src/app (routes, shell) puts the features together; a feature does not import it (docs/architecture.md)',
    from: { path: `${web}features/` },
    to: { path: `${web}app/` },
  },
];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No module may import itself through others, type-only imports included (docs/architecture.md)',
      from: {},
      to: { circular: true },
    },
    {
      name: 'packages-never-import-apps',
      severity: 'error',
      // A package's own tests may borrow the server's test database: packages/segments/test/global-setup.ts
      // migrates one with the server's migrations to run the compiled SQL on PostgreSQL.
      comment: 'packages/* are shared by the apps; they import no app',
      from: { path: '^packages/', pathNot: '^packages/[^/]+/test/' },
      to: { path: '^apps/' },
    },
    {
      name: 'http-imports-no-feature',
      severity: 'error',
      comment: 'http/ is a toolkit; the routes are put together in app/ (docs/architecture.md)',
      from: { path: `${server}http/` },
      to: { path: `${server}(features|app|cli)/` },
    },
    {
      name: 'jobs-imports-no-feature',
      severity: 'error',
      comment:
        'jobs/ is a toolkit (enqueue, job types, the runner); the task list is put together in app/ (docs/architecture.md)',
      from: { path: `${server}jobs/` },
      to: { path: `${server}(features|app|cli)/` },
    },
    {
      name: 'toolkit-imports-no-feature',
      severity: 'error',
      comment:
        'The toolkit (config, db, lib, mail, services.ts...) sits below every feature (docs/architecture.md)',
      from: { path: `${server}([^/]+\\.ts$|db/|lib/|mail/)` },
      to: { path: `${server}(features|app|cli)/` },
    },
    {
      name: 'features-below-composition-root',
      severity: 'error',
      comment: 'app/ and cli/ put the features together; no feature imports them (docs/architecture.md)',
      from: { path: features },
      to: { path: `${server}(app|cli)/` },
    },
    {
      name: 'feature-order/listed',
      severity: 'error',
      comment:
        'Every server feature has its place in the declared order (serverFeatures in .dependency-cruiser.cjs, docs/architecture.md)',
      from: { path: `${features}([^/]+)/` },
      to: { path: features, pathNot: [listed, `${features}$1/`] },
    },
    ...featureOrder,
    ...webRules,
  ],
  options: {
    // Type-only imports are imports: a circle of types is a circle.
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['node_modules', '/dist/'] },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] },
  },
};
