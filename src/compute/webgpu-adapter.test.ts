import { afterEach, describe, expect, it } from 'vitest';
import {
  describeWebGpuAdapter,
  missingWebGpuPackages,
  probeWebGpuAdapter,
} from './webgpu-adapter.js';
import { gpuTestAdapter } from '../../test/support/webgpu.js';

/*
 * Adapter detection without depending on one: the forced "none", a bad setting, and how an adapter
 * is described; then, where there is one (lavapipe in CI, which fails without it), what the probe
 * says of it. Whether a real adapter computes correctly is in webgpu-backend.test.ts.
 */

const packagesMissing = missingWebGpuPackages().length > 0;
const found = await gpuTestAdapter('src/compute/webgpu-adapter.test.ts');
const saved = process.env.TRADELAB_WEBGPU_ADAPTER;
afterEach(() => {
  if (saved === undefined) delete process.env.TRADELAB_WEBGPU_ADAPTER;
  else process.env.TRADELAB_WEBGPU_ADAPTER = saved;
});

describe('probeWebGpuAdapter', () => {
  it('finds none when TRADELAB_WEBGPU_ADAPTER=none, saying why', async () => {
    process.env.TRADELAB_WEBGPU_ADAPTER = 'none';
    const probe = await probeWebGpuAdapter();
    expect(probe.found).toBe(false);
    if (probe.found) return;
    // Without the packages the reason is that they are missing, which outranks the setting.
    expect(probe.reason).toContain(
      packagesMissing ? 'npm install webgpu' : 'TRADELAB_WEBGPU_ADAPTER=none',
    );
  });

  it.skipIf(packagesMissing)(
    'takes any other TRADELAB_WEBGPU_ADAPTER as a name: one no adapter has is no adapter',
    async () => {
      process.env.TRADELAB_WEBGPU_ADAPTER = 'no-such-gpu';
      const probe = await probeWebGpuAdapter();
      expect(probe.found).toBe(false);
    },
  );

  it('answers either an adapter or a reason, and never throws for lack of one', async () => {
    const probe = await probeWebGpuAdapter();
    if (probe.found) expect(probe.adapter.description + probe.adapter.device).not.toBe('');
    else expect(probe.reason.length).toBeGreaterThan(10);
  });
});

describe.skipIf(!found)('probeWebGpuAdapter on a real adapter', () => {
  it("names it, and calls Mesa's lavapipe (llvmpipe) software, as auto needs", async () => {
    const probe = await probeWebGpuAdapter({ packages: ['webgpu'] });
    expect(probe.found).toBe(true);
    if (!probe.found) return;
    const { adapter } = probe;
    expect(describeWebGpuAdapter(adapter)).not.toMatch(/^unnamed adapter/);
    if (/llvmpipe|lavapipe/i.test(`${adapter.description} ${adapter.device}`))
      expect(adapter.software).toBe(true);
  });
});

describe('describeWebGpuAdapter', () => {
  it('names the adapter, its vendor and architecture, and says when it is software', () => {
    expect(
      describeWebGpuAdapter({
        vendor: 'nvidia',
        architecture: 'ada-lovelace',
        device: '',
        description: 'NVIDIA GeForce RTX 4090',
        software: false,
      }),
    ).toBe('NVIDIA GeForce RTX 4090 (nvidia, ada-lovelace)');
    expect(
      describeWebGpuAdapter({
        vendor: 'google',
        architecture: '',
        device: 'swiftshader',
        description: '',
        software: true,
      }),
    ).toBe('swiftshader (google, software)');
    expect(
      describeWebGpuAdapter({
        vendor: '',
        architecture: '',
        device: '',
        description: '',
        software: false,
      }),
    ).toBe('unnamed adapter');
  });
});
