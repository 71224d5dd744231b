/** An option every command takes; `display` is how help writes it when not `--NAME`. */
export interface GlobalOption {
  name: string;
  short?: string;
  value?: string;
  display?: string;
  description: string;
}

/** Options every command takes. */
export const GLOBAL_OPTIONS: readonly GlobalOption[] = [
  { name: 'json', description: 'print data as JSON, one object per line' },
  {
    name: 'progress-records',
    description:
      'with --json, also print the progress of long work as records ({"type":"progress",…}): what a service job reads',
  },
  { name: 'verbose', short: 'v', description: 'print the stack trace of errors' },
  {
    name: 'config',
    value: 'PATH',
    description: 'use this config file instead of searching for one',
  },
  {
    name: 'color',
    display: '--no-color',
    description: 'no colors (as NO_COLOR=1); colors show on a terminal only, --color forces them',
  },
  { name: 'help', short: 'h', description: 'show help' },
  { name: 'version', short: 'V', description: 'print the version' },
];
