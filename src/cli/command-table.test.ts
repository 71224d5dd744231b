import { describe, expect, it } from 'vitest';
import { COMMANDS } from './command-table.js';
import { jobCommandsOf } from './job-commands.js';

/*
 * The command table declares which options name files (`path: true`): the service keeps a job's
 * such values inside the project. These hold the declaration and the help together, so a path
 * option added without it is caught here rather than let out of the project.
 */

const PATHLIKE = /^(DIR|FILE|MODULE|PATH)$/;

describe('the command table', () => {
  it('declares every option and positional that names a file as a path', () => {
    for (const spec of COMMANDS) {
      const where = spec.words.join(' ');
      for (const option of spec.options)
        expect(option.path === true, `${where} --${option.name}`).toBe(
          option.value !== undefined && PATHLIKE.test(option.value),
        );
      for (const positional of spec.positionals)
        expect(positional.path === true, `${where} ${positional.name}`).toBe(
          PATHLIKE.test(positional.name),
        );
    }
  });

  it("gives the service's jobs the path rules as declared", () => {
    const train = jobCommandsOf(COMMANDS).find((c) => c.words.join(' ') === 'train ppo');
    expect(train?.options.find((o) => o.name === 'out')?.path).toBe(true);
    expect(train?.options.find((o) => o.name === 'policy')).toMatchObject({
      path: false,
      pathAfter: 'tcn:',
    });
    expect(train?.options.find((o) => o.name === 'steps')?.path).toBe(false);
  });
});
