/*
 * The import rule of tradelab's layers (docs/architecture.md), checked by `npm test`
 * (`npm run check:imports`): no cycles, not even through `await import()` or type-only imports;
 * each folder imports only the folders below it; the CLI reaches other folders only through their
 * index files; only compute/, models/ and agents/ load TensorFlow.js.
 */

/** Each folder of src/ and the folders it may import (besides itself and npm/node modules). */
const LAYERS = {
  core: [],
  report: ['core'],
  data: ['core'],
  profiles: ['core'],
  storage: ['core'],
  config: ['core', 'profiles'],
  env: ['core', 'data'],
  eval: ['core', 'data', 'env'],
  gpu: ['core'],
  compute: ['core', 'config', 'gpu'],
  models: ['core', 'compute', 'data', 'gpu', 'profiles'],
  agents: ['core', 'compute', 'data', 'env', 'eval', 'gpu', 'models', 'report'],
  tune: ['core', 'storage'],
  jobs: ['core', 'storage'],
};
// The applications of the lower layers, each above the one before.
LAYERS.trading = [...LAYERS.agents, 'agents', 'config', 'profiles', 'storage', 'tune'];
LAYERS.supervised = [...LAYERS.agents, 'agents', 'config', 'profiles'];
LAYERS.campaign = [...LAYERS.trading, 'trading'];
LAYERS.app = [...LAYERS.campaign, 'campaign', 'supervised'];
LAYERS.bench = [...LAYERS.app, 'app'];
// The HTTP service beside the CLI: everything the CLI reaches but the CLI and the benchmarks.
LAYERS.server = [...LAYERS.app, 'app', 'jobs'];

const folders = Object.keys(LAYERS);

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'an import cycle: move what both sides need into a lower file or folder',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...folders.map((folder) => ({
      name: `${folder}-imports-downward`,
      comment: `${folder}/ may import only ${LAYERS[folder].join(', ') || 'nothing of ours'} (docs/architecture.md)`,
      severity: 'error',
      from: { path: `^src/${folder}/` },
      to: {
        path: '^src/',
        pathNot: [`^src/(${[folder, ...LAYERS[folder]].join('|')})/`],
      },
    })),
    {
      name: 'cli-through-index-files',
      comment: 'the CLI calls other folders through their index.ts (the public API of each)',
      severity: 'error',
      from: { path: '^src/cli/' },
      to: { path: '^src/(?!cli/)[^/]+/', pathNot: '^src/[^/]+/index\\.ts$' },
    },
    {
      name: 'nothing-imports-the-cli',
      comment: 'the CLI is the top: nothing below it imports it',
      severity: 'error',
      from: { path: '^src/(?!cli/)' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'tfjs-only-in-compute-models-agents',
      comment:
        'only compute/, models/ and agents/ load TensorFlow.js (a command that reads rows must not)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(compute|models|agents)/' },
      to: { path: '@tensorflow/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['\\.test\\.ts$', '^src/.*/[^/]*-test-support\\.ts$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
