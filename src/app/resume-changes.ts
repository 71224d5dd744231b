import { TradelabError } from '../core/index.js';

/*
 * A resumed run keeps its own settings. Re-running the command that started it with `--resume`
 * added is the natural thing to do, so a flag is refused only when its value differs from the
 * run's, and the refusal names both values.
 */

/** A flag given to a resume, with the run's value and the one asked. */
export interface ResumeFlag {
  /** The flag as typed, e.g. `--net-dim`. */
  flag: string;
  /** The run's value (its default when the run was started without the flag). */
  run: unknown;
  /** The value this command line asks for. */
  asked: unknown;
}

/** A value as a command line would write it (`none` for a setting the run does not have). */
function shown(value: unknown): string {
  if (value === undefined || value === null) return 'none';
  if (Array.isArray(value)) return value.join('..');
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (typeof value === 'number' || typeof value === 'string') return String(value);
  return JSON.stringify(value);
}

/** Whether two settings are the same (numbers by value, bar ranges element by element). */
function same(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => same(x, b[i]));
  return a === b || ((a ?? null) === null && (b ?? null) === null);
}

/**
 * Refuses a resume whose flags ask for values other than the run's, naming each flag with the run's
 * value and the asked one; `extendable` names the flag that may change (it is not in `flags`).
 */
export function refuseChangedResumeFlags(flags: readonly ResumeFlag[], extendable: string): void {
  const changed = flags.filter((f) => !same(f.run, f.asked));
  if (changed.length === 0) return;
  const list = changed
    .map((f) => `${f.flag} ${shown(f.asked)} (the run's: ${shown(f.run)})`)
    .join(', ');
  throw new TradelabError(
    'INVALID_ARGUMENT',
    `--resume keeps the run's settings; ${changed.length === 1 ? 'this flag differs' : 'these flags differ'}: ${list}`,
    {
      hint: `give the run's values or leave the flags out (only ${extendable} may extend a resumed run), or start a new run with another --out`,
      details: { changed: changed.map((f) => ({ flag: f.flag, run: f.run, asked: f.asked })) },
    },
  );
}

/**
 * The data spec of a run: a resumed run's own (`--data` may repeat it, not change it), else the one
 * asked; `command` and `example` say how to give it when neither is there.
 */
export function runDataSpec(
  command: string,
  recorded: string | undefined,
  asked: string | undefined,
  example: string,
): string {
  const spec = recorded ?? asked;
  if (spec === undefined)
    throw new TradelabError('USAGE', `${command} needs --data SYM[,SYM]:TF`, {
      hint: `e.g. --data ${example} (see \`tradelab data list\`)`,
    });
  if (recorded !== undefined && asked !== undefined && asked !== recorded)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--data ${asked} differs from the run's ${recorded}`,
      {
        hint: 'leave --data out when resuming, or start a new run with another --out',
      },
    );
  return spec;
}
