import type { CommandSpec } from '../command-spec.js';
import { COMPLETION_SHELLS } from '../completion-script.js';

/** The first command a new user runs: the main job on embedded defaults. */
export const QUICKSTART_COMMAND: CommandSpec = {
  words: ['quickstart'],
  summary:
    'detect the GPU, plan trial workers, then train a small PPO on synthetic data and evaluate it',
  positionals: [],
  options: [
    {
      name: 'steps',
      type: 'string',
      value: 'N',
      description: 'env steps of the demo training (default 150000)',
    },
  ],
  settings: ['profile', 'profilesFile', 'backend', 'safetyFactor', 'detect', 'detectTimeoutMs'],
  examples: ['tradelab quickstart', 'GPU_PROFILE=rtx_4090 tradelab quickstart'],
  load: () => import('../commands/quickstart.js'),
};

/** Commands about this machine's setup: the compute backends and the resolved config. */
export const SETUP_COMMANDS: readonly CommandSpec[] = [
  {
    words: ['backends'],
    summary: 'TensorFlow.js compute backends: which can run here, and why not the others',
    positionals: [],
    options: [],
    settings: ['backend'],
    examples: ['tradelab backends', 'tradelab backends --json'],
    load: () => import('../commands/backends.js'),
  },
  {
    words: ['config', 'show'],
    summary: 'every setting, its value and where it came from (flag, env, file, default)',
    positionals: [],
    options: [],
    settings: [
      'profile',
      'profilesFile',
      'dataDir',
      'storage',
      'artifactDir',
      'runsDir',
      'safetyFactor',
      'backend',
      'detect',
      'detectTimeoutMs',
    ],
    examples: ['tradelab config show', 'TRADELAB_SAFETY_FACTOR=0.9 tradelab config show --json'],
    load: () => import('../commands/config-show.js'),
  },
  {
    words: ['completion'],
    summary: 'print the shell completion script for bash, zsh or fish (commands, options)',
    positionals: [
      {
        name: 'SHELL',
        description: COMPLETION_SHELLS.join(', '),
        required: true,
        choices: COMPLETION_SHELLS,
      },
    ],
    options: [],
    settings: [],
    examples: [
      'source <(tradelab completion bash)        # in ~/.bashrc',
      'source <(tradelab completion zsh)         # in ~/.zshrc, after compinit',
      'tradelab completion fish > ~/.config/fish/completions/tradelab.fish',
    ],
    load: () => import('../commands/completion.js'),
  },
];
