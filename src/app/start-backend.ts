import type { ActiveBackend, UseBackendOptions } from '../compute/index.js';
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
  // Loaded here, not at the top: TensorFlow.js takes a while to load, and only commands that
  // compute need it (`study list` must start fast).
  const { useBackend } = await import('../compute/index.js');
  return useBackend(choice, { ...options, gpuProfile });
}
