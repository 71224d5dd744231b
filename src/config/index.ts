export {
  CONFIG_FILE_NAMES,
  LOCATED_FILE_EXTENSIONS,
  findConfigFile,
  readLocatedFile,
  type LocatedFile,
} from './config-file.js';
export { ConfigFileSchema, type ConfigFileContent } from './config-schema.js';
export { SETTING_SCHEMAS } from './setting-schemas.js';
export {
  loadConfig,
  type Config,
  type CustomProfileSource,
  type LoadConfigOptions,
  type SettingSource,
  type SettingSourceKind,
} from './load-config.js';
export {
  BACKENDS,
  SETTINGS,
  parseSettingString,
  settingSpec,
  type BackendChoice,
  type SettingName,
  type Settings,
  type SettingSpec,
} from './settings.js';
