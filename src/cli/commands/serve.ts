import { totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../config/index.js';
import { startService } from '../../server/index.js';
import type { CommandContext } from '../command-spec.js';
import { jobCommandsOf } from '../job-commands.js';
import { intOption } from '../option-values.js';
import { profileBanner } from '../profile-banner.js';
import { onStopSignals } from '../stop-signals.js';

/** tradelab's own entry, which every job runs (dist/cli/commands/ → bin/). */
const BIN = fileURLToPath(new URL('../../../bin/tradelab.js', import.meta.url));

/**
 * The service's resolved settings as the environment of its jobs: a job runs in the project with
 * the storage, data, profile and backend the service uses, whatever flags started the service.
 */
function jobEnvironment(config: Config): NodeJS.ProcessEnv {
  const { settings } = config;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TRADELAB_STORAGE: settings.storage,
    TRADELAB_DATA_DIR: settings.dataDir,
    TRADELAB_ARTIFACT_DIR: settings.artifactDir,
    TRADELAB_RUNS_DIR: settings.runsDir,
    TRADELAB_BACKEND: settings.backend,
    TRADELAB_SAFETY_FACTOR: String(settings.safetyFactor),
    TRADELAB_DETECT: String(settings.detect),
  };
  if (settings.profile !== undefined) env.GPU_PROFILE = settings.profile;
  if (settings.profilesFile !== undefined) env.TRADELAB_PROFILES_FILE = settings.profilesFile;
  if (config.configFile !== undefined) env.TRADELAB_CONFIG = config.configFile;
  return env;
}

/** `tradelab serve [--host 127.0.0.1] [--port 8321] [--workers N] [--new-token]`. */
export async function run(context: CommandContext): Promise<number> {
  const { options, out } = context;
  const host = typeof options.host === 'string' ? options.host : '127.0.0.1';
  const port = intOption(options, 'port', 0) ?? 8321;
  const slots = intOption(options, 'workers', 1);
  const project = context.project();
  const service = await startService({
    project,
    host,
    port,
    commands: jobCommandsOf(context.commands),
    jobCommand: [process.execPath, BIN],
    jobEnv: jobEnvironment(project.config),
    ...(slots === undefined ? {} : { slots }),
    newToken: options['new-token'] === true,
  });
  const { choice, plan, memory } = service.plan;
  out.note(profileBanner(choice, plan.workers, memory.kind === 'host' ? totalmem() : undefined));
  out.note(
    `API: job pool of ${service.slots} worker slot${service.slots === 1 ? '' : 's'} (${
      slots === undefined
        ? `the planner's ${plan.workload} workers, limited by ${plan.limitedBy}`
        : '--workers'
    }); jobs and studies in ${service.storage}`,
  );
  if (service.interrupted.length > 0) {
    out.note(
      `jobs ${service.interrupted.map((j) => j.id).join(', ')} were running when the service stopped: marked interrupted (retry them from the dashboard or POST /api/jobs/ID/retry)`,
    );
  }
  if (service.newToken !== undefined) {
    out.note(`token: ${service.newToken}`);
    out.note(
      `  shown once; only its hash is kept (${service.tokenFile ?? ''}). Open ${service.url.replace(/\/\/(0\.0\.0\.0|\[::\])/, '//HOST')}/?token=TOKEN once in a browser, or send Authorization: Bearer TOKEN. --new-token replaces it.`,
    );
  } else if (service.tokenFile !== undefined) {
    out.note(
      `a token is required (its hash: ${service.tokenFile}; lost it? restart with --new-token)`,
    );
  }
  out.note(`serving ${service.url}  (dashboard /, API /api, OpenAPI /openapi.json)`);
  out.record({ url: service.url, slots: service.slots, profile: choice.profile.name });
  // Runs until a signal: the first closes cleanly (running jobs end as interrupted).
  await new Promise<void>((resolve) => {
    const signals = onStopSignals({
      requested(signal) {
        out.note(`${signal}: stopping (running jobs end as interrupted; retry them later)`);
        service
          .close()
          .catch((error: unknown) => {
            out.note(`error while stopping: ${(error as Error).message}`);
          })
          .finally(() => {
            signals.dispose();
            resolve();
          });
      },
      forced() {
        out.note('stopped at once');
      },
    });
  });
  return 0;
}
