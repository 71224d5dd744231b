import { totalmem } from 'node:os';
import { formatBytes, type ProfileChoice } from '../profiles/index.js';
import type { CommandContext } from './command-spec.js';

/**
 * The one line a training command logs when it starts, as the seeds did:
 * `GPU: using profile 'NVIDIA RTX 4090' (24 GB VRAM) from GPU_PROFILE; workers: 2`.
 */
export function profileBanner(
  choice: ProfileChoice,
  workers: number,
  hostRamBytes?: number,
): string {
  const { profile } = choice;
  const memory =
    profile.vendor === 'cpu'
      ? `no GPU${hostRamBytes === undefined ? '' : `; ${formatBytes(hostRamBytes)} RAM`}`
      : `${profile.vramGb} GB VRAM${profile.origin === 'builtin' ? '' : `, ${profile.origin}`}`;
  const from = {
    flag: `from ${choice.origin}`,
    env: `from ${choice.origin}`,
    file: `from ${choice.origin}`,
    detected: `detected by ${choice.origin}`,
    default: `by default (${choice.origin})`,
  }[choice.source];
  const ignored =
    choice.ignored === undefined || choice.ignored.length === 0
      ? ''
      : ` (${choice.ignored.join(', ')} ignored)`;
  return `GPU: using profile '${profile.displayName}' (${memory}) ${from}${ignored}; workers: ${workers}`;
}

/** Logs {@link profileBanner} on stderr as a training command starts (`train ppo`, `study run`, `campaign run`). */
export async function logProfileBanner(context: CommandContext, workers: number): Promise<void> {
  const choice = await context.project().chooseProfile();
  context.out.note(
    profileBanner(choice, workers, choice.profile.vendor === 'cpu' ? totalmem() : undefined),
  );
}
