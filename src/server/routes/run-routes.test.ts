import { describe, expect, it } from 'vitest';
import { MANIFEST_FILE } from '../../agents/index.js';
import { RUN_FILE } from '../../supervised/index.js';
import { RUN_FILES } from './run-routes.js';

describe('the runs the service lists', () => {
  it('are found by the run files train ppo and pretrain tcn write', () => {
    expect(RUN_FILES).toEqual({ ppo: MANIFEST_FILE, tcn: RUN_FILE });
  });
});
