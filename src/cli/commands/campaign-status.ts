import { campaignRows, readCampaign, totalOf } from '../../campaign/index.js';
import { campaignRowRecord, campaignTableLines } from '../campaign-table.js';
import type { CommandContext } from '../command-spec.js';
import { readStudyStorage } from '../open-study-storage.js';

/** `tradelab campaign status NAME`: the run's table, from the storage (any machine). */
export async function run(context: CommandContext): Promise<void> {
  const { out } = context;
  const name = context.positionals[0] ?? '';
  await readStudyStorage(context, async (storage) => {
    const { plan } = await readCampaign(storage, name);
    const rows = await campaignRows(storage, plan);
    if (out.json) {
      const total = totalOf(rows);
      for (const row of rows)
        out.record({ type: 'study', campaign: plan.name, ...campaignRowRecord(row) });
      out.record({
        type: 'total',
        campaign: plan.name,
        target: total.target,
        done: total.counts.done,
        complete: total.counts.complete,
        pruned: total.counts.pruned,
        failed: total.counts.failed,
        running: total.counts.running,
        perHour: total.counts.perHour,
      });
      return;
    }
    out.line(`Campaign ${plan.name} in ${storage.url} (from ${plan.file})`);
    for (const line of campaignTableLines(rows)) out.line(line);
  });
}
