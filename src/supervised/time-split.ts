/*
 * The time split both supervised datasets use: ordered units (sessions, or bar timestamps) cut
 * into train | gap | validation | gap | test, the gaps `gap` units long so that no training target
 * reaches into the validation period, nor a validation target into the test period.
 */

/** A split's name. */
export type SplitName = 'train' | 'validation' | 'test';

/** Where the cuts fall. */
export interface TimeSplit {
  /** Units in each split (the gaps excluded); validation and test may be 0 when data is short. */
  counts: Record<SplitName, number>;
  trainEnd: number;
  validationStart: number;
  validationEnd: number;
  testStart: number;
  /** The last unit. */
  last: number;
  /** The split a unit falls in, or undefined in a gap. */
  splitOf: (unit: number) => SplitName | undefined;
}

/** Cuts ascending `units` by the validation and test shares of what the two gaps leave. */
export function timeSplit(
  units: readonly number[],
  gap: number,
  validationShare: number,
  testShare: number,
): TimeSplit {
  const usable = units.length - 2 * gap;
  const validation = Math.floor(usable * validationShare);
  const test = Math.floor(usable * testShare);
  const train = usable - validation - test;
  const at = (i: number): number => units[i] ?? Number.NaN;
  const trainEnd = at(train - 1);
  const validationStart = at(train + gap);
  const validationEnd = at(train + gap + validation - 1);
  const testStart = at(train + 2 * gap + validation);
  return {
    counts: { train, validation, test },
    trainEnd,
    validationStart,
    validationEnd,
    testStart,
    last: at(units.length - 1),
    splitOf: (unit) =>
      unit <= trainEnd
        ? 'train'
        : unit >= validationStart && unit <= validationEnd
          ? 'validation'
          : unit >= testStart
            ? 'test'
            : undefined,
  };
}
