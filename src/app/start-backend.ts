import { useBackend, type ActiveBackend, type UseBackendOptions } from '../compute/backends.js';
import type { Project } from './open-project.js';

/**
 * Starts the configured backend for a training command. `auto` needs to know whether the
 * profile is a GPU one, so only then is the profile chosen (which may run GPU detection).
 */
export async function startBackend(
  project: Project,
  options: Omit<UseBackendOptions, 'gpuProfile'> = {},
): Promise<ActiveBackend> {
  const choice = project.config.settings.backend;
  const gpuProfile =
    choice === 'auto' ? (await project.chooseProfile()).profile.vendor !== 'cpu' : false;
  return useBackend(choice, { ...options, gpuProfile });
}
