import { closestMatch, TradelabError } from '../../core/index.js';
import type { CommandContext } from '../command-spec.js';
import { COMPLETION_SHELLS, completionScript } from '../completion-script.js';
import { GLOBAL_OPTIONS } from '../global-options.js';

/** `tradelab completion SHELL`: prints the completion script for bash, zsh or fish. */
export function run(context: CommandContext): Promise<void> {
  const [name = ''] = context.positionals;
  const shell = COMPLETION_SHELLS.find((s) => s === name);
  if (shell === undefined) {
    const guess = closestMatch(name, COMPLETION_SHELLS);
    throw new TradelabError(
      'USAGE',
      `no completion for the shell "${name}"; tradelab writes it for ${COMPLETION_SHELLS.join(', ')}`,
      {
        hint:
          guess === undefined
            ? 'e.g. source <(tradelab completion bash)'
            : `did you mean \`tradelab completion ${guess}\`?`,
      },
    );
  }
  const script = completionScript(shell, context.commands, GLOBAL_OPTIONS);
  if (context.out.json) context.out.record({ shell, script });
  else context.out.line(script.trimEnd());
  return Promise.resolve();
}
