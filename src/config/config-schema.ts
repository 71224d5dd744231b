import { z } from 'zod';
import { CustomProfilesSchema } from '../profiles/profile-schema.js';
import { SETTING_SCHEMAS } from './setting-schemas.js';
import type { SettingName } from './settings.js';

const field = (name: SettingName) => SETTING_SCHEMAS[name].optional();

/**
 * The project config file (`tradelab.config.yaml` or `.json`). Every key is optional; unknown keys
 * are errors, so a typo never silently falls back to a default.
 */
export const ConfigFileSchema = z.strictObject({
  profile: field('profile'),
  profilesFile: field('profilesFile'),
  profiles: CustomProfilesSchema.optional(),
  paths: z
    .strictObject({
      data: field('dataDir'),
      storage: field('storage'),
      artifacts: field('artifactDir'),
      runs: field('runsDir'),
    })
    .optional(),
  planner: z.strictObject({ safetyFactor: field('safetyFactor') }).optional(),
  compute: z.strictObject({ backend: field('backend') }).optional(),
  detect: z
    .strictObject({ enabled: field('detect'), timeoutMs: field('detectTimeoutMs') })
    .optional(),
});

/** The parsed config file. */
export type ConfigFileContent = z.infer<typeof ConfigFileSchema>;
