import type { CommandSpec } from '../command-spec.js';
import { COMPLETION_SHELLS } from '../completion-script.js';

/** The first command a new user runs: the main job on embedded defaults. */
export const QUICKSTART_COMMAND: CommandSpec = {
  words: ['quickstart'],
  summary:
    'detect the GPU, plan trial workers, then run a small campaign of the five presets on synthetic data and print its report',
  positionals: [],
  options: [
    {
      name: 'trials',
      type: 'string',
      value: 'N',
      description: 'trials of each ensemble study (default 4; the fine-tuning ones run half)',
    },
    {
      name: 'steps',
      type: 'string',
      value: 'N',
      description: 'env steps a trial trains on each split (default 8192)',
    },
    {
      name: 'workers',
      type: 'string',
      value: 'auto|N',
      description: 'worker processes (default auto: what the planner fits)',
    },
  ],
  settings: ['profile', 'profilesFile', 'backend', 'safetyFactor', 'detect', 'detectTimeoutMs'],
  examples: [
    'tradelab quickstart',
    'GPU_PROFILE=rtx_4090 tradelab quickstart',
    'tradelab quickstart --trials 10 --steps 20000',
  ],
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
