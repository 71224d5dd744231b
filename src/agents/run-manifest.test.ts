import { describe, expect, it } from 'vitest';
import { savedEnvOptions } from './run-manifest.js';

describe('savedEnvOptions', () => {
  it('gives a run or model saved before fills were recorded the close fills it trained with', () => {
    expect(savedEnvOptions({ buyFeeBps: 5 })).toEqual({ buyFeeBps: 5, executionPrice: 'close' });
    expect(savedEnvOptions({ executionPrice: 'open' })).toEqual({ executionPrice: 'open' });
  });
});
