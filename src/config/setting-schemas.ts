import { z } from 'zod';
import { BACKENDS, type SettingName } from './settings.js';

const nonEmpty = z.string().min(1, 'must not be empty');

/** How each setting is validated, whatever its source (flag, environment, file). */
export const SETTING_SCHEMAS: Readonly<Record<SettingName, z.ZodType>> = {
  profile: nonEmpty,
  profilesFile: nonEmpty,
  dataDir: nonEmpty,
  artifactDir: nonEmpty,
  storage: z
    .string()
    .regex(
      /^(memory:|sqlite:.+|postgres(ql)?:\/\/.+)$/,
      'expected memory:, sqlite:PATH or postgres://…',
    ),
  runsDir: nonEmpty,
  safetyFactor: z
    .number()
    .gt(0, 'must be greater than 0')
    .max(1, 'must be at most 1 (the whole memory)'),
  backend: z.enum(BACKENDS),
  detect: z.boolean(),
  detectTimeoutMs: z.number().int('must be a whole number').min(100, 'must be at least 100 ms'),
};
