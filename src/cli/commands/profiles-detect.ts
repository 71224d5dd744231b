import { formatBytes, freeMemoryBytes } from '../../profiles/index.js';
import type { CommandContext } from '../command-spec.js';
import { renderTable } from '../output.js';

/** `tradelab profiles detect`: what each tool found, each GPU's profile, and the profile chosen. */
export async function run(context: CommandContext): Promise<void> {
  const { out } = context;
  const project = context.project();
  const detection = await project.detect();
  const choice = await project.chooseProfile();

  if (out.json) {
    for (const tool of detection?.tools ?? []) {
      out.record({
        type: 'tool',
        tool: tool.tool,
        status: tool.status,
        detail: tool.detail,
        command: tool.command,
        durationMs: tool.durationMs,
        warnings: tool.warnings,
      });
    }
    for (const m of choice.matched) {
      out.record({
        type: 'gpu',
        ...m.gpu,
        freeBytes: freeMemoryBytes(m.gpu),
        profile: m.profile.name,
        how: m.how,
        reason: m.reason,
      });
    }
    out.record({
      type: 'choice',
      profile: choice.profile.name,
      displayName: choice.profile.displayName,
      source: choice.source,
      origin: choice.origin,
      reason: choice.reason,
      mismatch: choice.mismatch,
    });
    return;
  }

  if (detection === undefined) {
    out.line('Detection is off (detect.enabled: false, TRADELAB_DETECT=0 or --no-detect).');
  } else {
    out.line('Tools:');
    for (const line of renderTable(detection.tools, [
      { header: '  TOOL', value: (t) => `  ${t.tool}` },
      { header: 'STATUS', value: (t) => t.status },
      { header: 'TIME', value: (t) => `${t.durationMs} ms`, right: true },
      { header: 'DETAIL', value: (t) => t.detail },
    ]))
      out.line(line);
    const warnings = detection.tools.flatMap((t) => t.warnings.map((w) => `${t.tool}: ${w}`));
    for (const w of warnings) out.line(`  warning: ${w}`);
    out.line();
    if (choice.matched.length === 0) {
      out.line('GPUs: none found.');
    } else {
      out.line('GPUs:');
      for (const line of renderTable(choice.matched, [
        { header: '  INDEX', value: (m) => `  ${m.gpu.index}`, right: true },
        { header: 'NAME', value: (m) => m.gpu.name },
        {
          header: 'MEMORY',
          value: (m) =>
            m.gpu.memoryTotalBytes === undefined ? '?' : formatBytes(m.gpu.memoryTotalBytes),
          right: true,
        },
        {
          header: 'FREE',
          value: (m) => {
            const f = freeMemoryBytes(m.gpu);
            return f === undefined ? '?' : formatBytes(f);
          },
          right: true,
        },
        { header: 'VIA', value: (m) => m.gpu.tool },
        {
          header: 'PROFILE',
          value: (m) => `${m.profile.name}${m.how === 'derived' ? ' (derived)' : ''}`,
        },
      ]))
        out.line(line);
      for (const m of choice.matched) out.line(`  GPU ${m.gpu.index}: ${m.reason}`);
    }
    out.line();
  }
  out.line(
    `Profile: ${choice.profile.name} (${choice.profile.displayName}), ${choice.source === 'detected' ? 'detected' : `from ${choice.source}`}: ${choice.reason}`,
  );
  if (choice.mismatch !== undefined) out.note(`note: ${choice.mismatch}`);
}
