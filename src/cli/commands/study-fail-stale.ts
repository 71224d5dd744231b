import { TradelabError } from '../../core/index.js';
import type { CommandContext } from '../command-spec.js';
import { duration, plural } from '../format.js';
import { intOption } from '../option-values.js';
import { withStudyStorage } from '../open-study-storage.js';

/** Default `--grace`: the worker pool's heartbeat grace period. */
const DEFAULT_GRACE_S = 60;
/** Default `--max-retries`: the worker pool's. */
const DEFAULT_MAX_RETRIES = 2;

/**
 * `tradelab study fail-stale [--study NAME] [--grace S] [--max-retries N]`: fails running trials
 * whose heartbeat is older than the grace period (their worker died with its machine or was killed)
 * and re-enqueues them with the same parameters.
 */
export async function run(context: CommandContext): Promise<void> {
  const { options, out } = context;
  const graceS = graceOption(options.grace);
  const maxRetries = intOption(options, 'max-retries', 0) ?? DEFAULT_MAX_RETRIES;
  await withStudyStorage(context, async (storage) => {
    const only = typeof options.study === 'string' ? await storage.getStudy(options.study) : null;
    const studies = await storage.listStudies();
    const names = new Map(studies.map((s) => [s.id, s.name]));
    // A failed trial no longer carries its heartbeat: read them while the trials still run.
    const heartbeats = new Map<number, number | null>();
    for (const study of only === null ? studies : [only])
      for (const t of await storage.getTrials(study.id, ['running']))
        heartbeats.set(t.id, t.heartbeatAt ?? t.startedAt);
    const now = Date.now();
    const result = await storage.failStale(only?.id ?? null, graceS * 1000, { maxRetries });
    const retryOf = new Map(
      result.retries.map((r) => [`${r.studyId}/${String(r.retryOf)}`, r.number]),
    );
    for (const trial of result.failed) {
      const study = names.get(trial.studyId) ?? `#${trial.studyId}`;
      const retry = retryOf.get(`${trial.studyId}/${trial.number}`);
      const beat = heartbeats.get(trial.id) ?? null;
      out.record({
        type: 'failed',
        study,
        number: trial.number,
        workerId: trial.workerId,
        lastHeartbeatAt: beat,
        retryNumber: retry ?? null,
      });
      out.line(
        `study "${study}" trial ${trial.number} (worker ${trial.workerId ?? '?'}, last heartbeat ${beat === null ? 'never' : `${duration(now - beat)} ago`}): failed; ${retry === undefined ? `not retried (already retried ${maxRetries} times)` : `retried as trial ${retry}`}`,
      );
    }
    const scope = only === null ? 'in any study' : `in study "${only.name}"`;
    out.record({
      type: 'summary',
      storage: storage.url,
      graceSeconds: graceS,
      failed: result.failed.length,
      retried: result.retries.length,
    });
    out.line(
      result.failed.length === 0
        ? `No running trial ${scope} has a heartbeat older than ${graceS} s (${storage.url}).`
        : `Failed ${plural(result.failed.length, 'stale trial')} ${scope}, enqueued ${plural(result.retries.length, 'retry', 'retries')}; the next \`tradelab study run\` runs them first.`,
    );
  });
}

/** `--grace S`: seconds ≥ 0 (0 fails every running trial: only when nothing runs). */
function graceOption(raw: string | boolean | undefined): number {
  if (raw === undefined) return DEFAULT_GRACE_S;
  const value = Number(raw);
  if (String(raw).trim() === '' || !Number.isFinite(value) || value < 0)
    throw new TradelabError(
      'INVALID_ARGUMENT',
      `--grace: ${JSON.stringify(raw)} is not allowed: expected seconds >= 0`,
      {
        hint: `e.g. --grace ${DEFAULT_GRACE_S}; 0 fails every running trial, for when no run is going on`,
      },
    );
  return value;
}
