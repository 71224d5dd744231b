import { describe, expect, it } from 'vitest';
import { forecastSettingsAt } from './forecast-settings.js';
import { createProfileRegistry } from './profile-registry.js';

describe('forecastSettingsAt', () => {
  const registry = createProfileRegistry();
  const rtx4090 = registry.all().find((p) => p.name === 'rtx_4090');

  it("gives seed 004's 1d and 1h values as the profile has them", () => {
    expect(rtx4090).toBeDefined();
    if (rtx4090 === undefined) return;
    const hourly = forecastSettingsAt(rtx4090, '1h');
    expect(hourly).toMatchObject({ batchSize: 768, memoryPerModelGb: 12, derived: false });
    expect(forecastSettingsAt(rtx4090, '1d').batchSize).toBe(512);
  });

  it('derives every other timeframe from the 1h values, marked as ours', () => {
    if (rtx4090 === undefined) return;
    for (const timeframe of ['1m', '5m', '15m', '30m', '4h'] as const) {
      const at = forecastSettingsAt(rtx4090, timeframe);
      expect(at).toMatchObject({ batchSize: 768, memoryPerModelGb: 12, derived: true });
      expect(at.source).toMatch(/^ours: /);
    }
  });

  it('takes a custom profile’s own value for a timeframe it sets', () => {
    if (rtx4090 === undefined) return;
    const custom = {
      ...rtx4090,
      workloads: {
        ...rtx4090.workloads,
        forecast: {
          ...rtx4090.workloads.forecast,
          batchSize: { ...rtx4090.workloads.forecast.batchSize, '5m': 2048 },
          memoryPerModelGb: { ...rtx4090.workloads.forecast.memoryPerModelGb, '5m': 4 },
        },
      },
    };
    expect(forecastSettingsAt(custom, '5m')).toMatchObject({
      batchSize: 2048,
      memoryPerModelGb: 4,
      derived: false,
    });
  });
});
