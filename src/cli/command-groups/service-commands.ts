import type { CommandSpec } from '../command-spec.js';

/** `tradelab serve`: the HTTP API, the job queue and the dashboard. */
export const SERVICE_COMMANDS: readonly CommandSpec[] = [
  {
    words: ['serve'],
    summary:
      'serve the HTTP API and the live dashboard, and run submitted jobs in a pool of workers sized by the planner',
    positionals: [],
    options: [
      {
        name: 'host',
        type: 'string',
        value: 'ADDR',
        description:
          'address to listen on (default 127.0.0.1); any other than localhost requires the token',
      },
      { name: 'port', type: 'string', value: 'N', description: 'port (default 8321; 0: any free)' },
      {
        name: 'workers',
        type: 'string',
        value: 'N',
        description: "job pool slots (default: the planner's trial workers for the profile)",
      },
      {
        name: 'new-token',
        type: 'boolean',
        description: 'replace the stored token with a new one (printed once)',
      },
    ],
    settings: [
      'profile',
      'profilesFile',
      'storage',
      'dataDir',
      'artifactDir',
      'runsDir',
      'backend',
      'safetyFactor',
      'detect',
      'detectTimeoutMs',
    ],
    examples: [
      'tradelab serve                      # http://127.0.0.1:8321, no token on localhost',
      'tradelab serve --host 0.0.0.0       # a token is required (printed on the first start)',
      'ssh -L 8321:127.0.0.1:8321 gpu-box  # from your laptop, to reach a remote one',
    ],
    load: () => import('../commands/serve.js'),
  },
];
