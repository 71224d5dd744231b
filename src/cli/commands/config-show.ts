import { SETTINGS } from '../../config/index.js';
import { maskPostgresUrl } from '../../storage/index.js';
import type { CommandContext } from '../command-spec.js';
import { renderTable } from '../output.js';

/** `tradelab config show`: every setting, its value, and where it came from. */
export function run(context: CommandContext): Promise<void> {
  const { out } = context;
  const { config } = context.project();
  const rows = SETTINGS.map((spec) => ({
    key: spec.filePath.join('.'),
    // A PostgreSQL URL's password is shown as *** here as everywhere else.
    value:
      spec.kind === 'storage-url' && /^postgres(ql)?:/.test(String(config.settings[spec.name]))
        ? maskPostgresUrl(String(config.settings[spec.name]))
        : config.settings[spec.name],
    source: config.sources[spec.name],
    env: spec.env.join(', '),
    flag: `--${spec.flag}`,
  }));
  if (out.json) {
    out.record({
      type: 'project',
      root: config.projectRoot,
      configFile: config.configFile ?? null,
      envFile: config.envFile ?? null,
    });
    for (const r of rows)
      out.record({
        type: 'setting',
        key: r.key,
        value: r.value ?? null,
        source: r.source.kind,
        origin: r.source.origin,
        ...(r.source.ignored === undefined ? {} : { ignored: r.source.ignored }),
      });
    for (const p of config.customProfiles)
      out.record({ type: 'custom-profile', name: p.name, at: p.locate([]) });
    return Promise.resolve();
  }
  out.line(`project root: ${config.projectRoot}`);
  out.line(
    `config file:  ${config.configFile ?? '(none: using defaults; create tradelab.config.yaml to set values)'}`,
  );
  out.line(`.env:         ${config.envFile ?? '(none)'}`);
  out.line();
  for (const line of renderTable(rows, [
    { header: 'SETTING', value: (r) => r.key },
    { header: 'VALUE', value: (r) => (r.value === undefined ? '(detected)' : String(r.value)) },
    {
      header: 'FROM',
      value: (r) =>
        r.source.kind === 'default'
          ? 'default'
          : `${r.source.kind}: ${r.source.origin}${r.source.ignored === undefined ? '' : ` (${r.source.ignored.join(', ')} ignored)`}`,
    },
    { header: 'ENV', value: (r) => r.env },
    { header: 'FLAG', value: (r) => r.flag },
  ]))
    out.line(line);
  if (config.customProfiles.length > 0) {
    out.line();
    out.line(`custom profiles: ${config.customProfiles.map((p) => p.name).join(', ')}`);
  }
  out.line();
  out.line(
    'Precedence: flag > environment (and .env) > config file > detected > default; of two variables for one setting, the first in ENV wins (GPU_PROFILE before TRADELAB_PROFILE), each from the environment before .env.',
  );
  return Promise.resolve();
}
