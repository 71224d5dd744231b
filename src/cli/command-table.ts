import type { CommandSpec } from './command-spec.js';
import { BENCH_COMMANDS } from './command-groups/bench-commands.js';
import { CAMPAIGN_COMMANDS } from './command-groups/campaign-commands.js';
import { DATA_COMMANDS } from './command-groups/data-commands.js';
import { PRETRAIN_COMMANDS } from './command-groups/pretrain-commands.js';
import { PROFILE_COMMANDS } from './command-groups/profile-commands.js';
import { SERVICE_COMMANDS } from './command-groups/service-commands.js';
import { QUICKSTART_COMMAND, SETUP_COMMANDS } from './command-groups/setup-commands.js';
import { STUDY_COMMANDS } from './command-groups/study-commands.js';
import { TRAIN_COMMANDS } from './command-groups/train-commands.js';

/**
 * Every command, in the order help lists them. Each group lives in its own file; each command's
 * module is imported only when it runs.
 */
export const COMMANDS: readonly CommandSpec[] = [
  QUICKSTART_COMMAND,
  ...PROFILE_COMMANDS,
  ...DATA_COMMANDS,
  ...BENCH_COMMANDS,
  ...STUDY_COMMANDS,
  ...CAMPAIGN_COMMANDS,
  ...TRAIN_COMMANDS,
  ...PRETRAIN_COMMANDS,
  ...SERVICE_COMMANDS,
  ...SETUP_COMMANDS,
];
