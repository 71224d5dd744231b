import { registerBuiltinObjectives } from './builtin-objectives.js';
import { loadConfig, type Config, type LoadConfigOptions } from '../config/index.js';
import {
  chooseProfile,
  createProfileRegistry,
  detectGpus,
  type Detection,
  type ProfileChoice,
  type ProfileRegistry,
  type RequestedProfile,
} from '../profiles/index.js';

/** A project: its resolved config, its profiles, and this machine's GPUs (detected once, on demand). */
export interface Project {
  config: Config;
  profiles: ProfileRegistry;
  /** Detects GPUs once per project; undefined when detection is turned off. */
  detect(): Promise<Detection | undefined>;
  /** The profile this run uses: flag > env > config file > detected > cpu. */
  chooseProfile(): Promise<ProfileChoice>;
}

/** Options for {@link openProject}: those of `loadConfig`. */
export type OpenProjectOptions = LoadConfigOptions;

/**
 * Loads the config (validating it) and the profile registry (validating custom profiles), and
 * registers the built-in objectives.
 */
export function openProject(options: OpenProjectOptions = {}): Project {
  registerBuiltinObjectives();
  const config = loadConfig(options);
  const profiles = createProfileRegistry(config.customProfiles);
  const env = options.env ?? process.env;
  let detection: Promise<Detection | undefined> | undefined;
  const detect = (): Promise<Detection | undefined> => {
    detection ??= config.settings.detect
      ? detectGpus({ timeoutMs: config.settings.detectTimeoutMs, env })
      : Promise.resolve(undefined);
    return detection;
  };
  return {
    config,
    profiles,
    detect,
    async chooseProfile() {
      return chooseProfile(profiles, requestedProfile(config), await detect());
    },
  };
}

function requestedProfile(config: Config): RequestedProfile | undefined {
  const name = config.settings.profile;
  if (name === undefined) return undefined;
  const source = config.sources.profile;
  if (source.kind !== 'flag' && source.kind !== 'env' && source.kind !== 'file') return undefined;
  return {
    name,
    source: source.kind,
    origin: source.origin,
    ...(source.ignored === undefined ? {} : { ignored: source.ignored }),
  };
}
