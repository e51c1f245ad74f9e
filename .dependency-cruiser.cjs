/**
 * The layering ARCHITECTURE.md draws, checked by `npm run check:deps` (part of `npm run lint`):
 * packages point down only, and the folders of apps/server/src form no cycle, so each room can be
 * read, tested and changed with only the rooms below it in mind.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'spec-imports-nothing-of-ours',
      comment: 'packages/spec holds schemas and their types only: it depends on zod, nothing of ours.',
      severity: 'error',
      from: { path: '^packages/spec/' },
      to: { path: '^(packages/(?!spec/)|apps/|bench/|e2e/)' },
    },
    {
      name: 'core-imports-only-spec',
      comment: 'packages/core is pure functions over spec types: it imports spec and nothing else of ours.',
      severity: 'error',
      from: { path: '^packages/core/' },
      to: { path: '^(packages/(?!core/|spec/)|apps/|bench/|e2e/)' },
    },
    {
      name: 'web-never-imports-server',
      comment: 'The browser bundle talks to the server through spec contracts only.',
      severity: 'error',
      from: { path: '^apps/web/' },
      to: { path: '^apps/server/' },
    },
    {
      name: 'server-never-imports-web',
      comment: 'The server serves the built page as files; it never imports the web app.',
      severity: 'error',
      from: { path: '^apps/server/' },
      to: { path: '^apps/web/' },
    },
    {
      name: 'plugins-hold-plugins',
      comment:
        'plugins/ holds Fastify plugins, registered by app/ and nowhere else: a class or helper that other ' +
        'folders need belongs in a folder of its own below them.',
      severity: 'error',
      from: { path: '^apps/server/src/', pathNot: '^apps/server/src/(app|plugins)/' },
      to: { path: '^apps/server/src/plugins/' },
    },
    {
      name: 'no-folder-cycle',
      comment:
        'No import cycle between folders of apps/server/src: commands/ on top, then app/, plugins/, the ' +
        'features, sampler/, targets/, postgres/, config/ and the leaves (ARCHITECTURE.md).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^apps/server/src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The rooms are the shipped code's: a test may reach across them (a route's test builds the app).
    exclude: { path: '(^|/)(node_modules|dist)/|\\.test\\.ts$|^apps/server/test/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'node', 'default'] },
  },
};
