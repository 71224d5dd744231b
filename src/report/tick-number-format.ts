// Large axes read better as "2.5M" than "2,500,000"; below a million digits are grouped instead.
const SUFFIXES: readonly (readonly [number, string])[] = [
  [1e12, 'T'],
  [1e9, 'B'],
  [1e6, 'M'],
];

/**
 * A tick label for `value` on an axis whose ticks are `step` apart and reach `axisMaxAbs` in size:
 * as many decimals as the step needs, thousands grouped, millions and up as M/B/T so every label
 * on one axis uses the same unit.
 */
export function formatTickNumber(
  value: number,
  step: number,
  axisMaxAbs: number = Math.abs(value),
): string {
  const [divisor, suffix] = SUFFIXES.find(([size]) => axisMaxAbs >= size) ?? [1, ''];
  const scaledStep = Math.abs(step / divisor);
  const decimals =
    scaledStep > 0 && Number.isFinite(scaledStep)
      ? Math.min(12, Math.max(0, -Math.floor(Math.log10(scaledStep) + 1e-9)))
      : 0;
  let text = (value / divisor).toFixed(decimals);
  if (/^-0(\.0*)?$/.test(text)) text = text.slice(1);
  return groupThousands(text) + suffix;
}

function groupThousands(text: string): string {
  const [integer = '', fraction] = text.split('.');
  const grouped = integer.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}
