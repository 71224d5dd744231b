import { describe, expect, it } from 'vitest';
import { TradelabError } from '../core/index.js';
import { chooseProfile, type RequestedProfile } from './choose-profile.js';
import type { Detection } from './detect/detect-gpus.js';
import type { DetectedGpu } from './detect/detected-gpu.js';
import { createProfileRegistry, type CustomProfileDefinition } from './profile-registry.js';

const MIB = 2 ** 20;

function gpu(index: number, name: string, totalMiB?: number, usedMiB?: number): DetectedGpu {
  const detected: DetectedGpu = { index, name, vendor: 'nvidia', tool: 'nvidia-smi' };
  if (totalMiB !== undefined) detected.memoryTotalBytes = totalMiB * MIB;
  if (usedMiB !== undefined) detected.memoryUsedBytes = usedMiB * MIB;
  return detected;
}

function detection(...gpus: DetectedGpu[]): Detection {
  return { gpus, tools: [] };
}

/** The error `fn` throws, or undefined when it returns. */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

const RTX_4090 = gpu(0, 'NVIDIA GeForce RTX 4090', 24564, 1564);
const FLAG: RequestedProfile = { name: 'h100', source: 'flag', origin: '--profile' };

describe('chooseProfile precedence', () => {
  const registry = createProfileRegistry();

  it('uses the detected card when nothing is requested', () => {
    const choice = chooseProfile(registry, undefined, detection(RTX_4090));
    expect(choice.profile.name).toBe('rtx_4090');
    expect(choice.source).toBe('detected');
    expect(choice.origin).toBe('nvidia-smi');
    expect(choice.gpu).toBe(RTX_4090);
    expect(choice.freeBytes).toBe((24564 - 1564) * MIB);
    expect(choice.mismatch).toBeUndefined();
    expect(choice.matched.map((m) => m.profile.name)).toEqual(['rtx_4090']);
    expect(choice.reason).toMatch(
      /^nvidia-smi found NVIDIA GeForce RTX 4090 \(23\.99 GiB\): name "NVIDIA GeForce RTX 4090" matches profile rtx_4090/,
    );
  });

  const sources: readonly RequestedProfile[] = [
    { name: 'h100', source: 'flag', origin: '--profile' },
    { name: 'h100', source: 'env', origin: 'GPU_PROFILE' },
    { name: 'h100', source: 'file', origin: 'tradelab.config.yaml:3:10' },
  ];
  for (const requested of sources) {
    it(`lets a profile named by ${requested.source} beat the detected card`, () => {
      const choice = chooseProfile(registry, requested, detection(RTX_4090));
      expect(choice.profile.name).toBe('h100');
      expect(choice.source).toBe(requested.source);
      expect(choice.origin).toBe(requested.origin);
      expect(choice.reason).toBe(`named by ${requested.origin}`);
      // Detection still ran: its matches are reported.
      expect(choice.matched.map((m) => m.profile.name)).toEqual(['rtx_4090']);
    });
  }

  it('flags a requested profile that is not the detected card, and applies no free memory', () => {
    const choice = chooseProfile(registry, FLAG, detection(RTX_4090));
    expect(choice.freeBytes).toBeUndefined();
    expect(choice.gpu).toBeUndefined();
    expect(choice.mismatch).toBe(
      "profile h100 (from --profile) is not this machine's NVIDIA GeForce RTX 4090 (rtx_4090); planning for h100, detected free memory not applied",
    );
  });

  it('keeps free memory when the requested profile is the detected card', () => {
    const requested: RequestedProfile = { name: 'rtx_4090', source: 'env', origin: 'GPU_PROFILE' };
    const choice = chooseProfile(registry, requested, detection(RTX_4090));
    expect(choice.profile.name).toBe('rtx_4090');
    expect(choice.source).toBe('env');
    expect(choice.mismatch).toBeUndefined();
    expect(choice.gpu).toBe(RTX_4090);
    expect(choice.freeBytes).toBe((24564 - 1564) * MIB);
  });

  it('resolves an alias and says how it was named', () => {
    const requested: RequestedProfile = { name: '4090', source: 'flag', origin: '--profile' };
    const choice = chooseProfile(registry, requested, detection(RTX_4090));
    expect(choice.profile.name).toBe('rtx_4090');
    expect(choice.reason).toBe('named by --profile as "4090"');
    expect(choice.freeBytes).toBe((24564 - 1564) * MIB);
  });

  it('keeps free memory for a custom profile that extends the detected card', () => {
    const custom: CustomProfileDefinition = {
      name: 'my_4090',
      input: { extends: 'rtx_4090', hourlyUsd: 0.35 },
      locate: () => 'tradelab.config.yaml:5:3',
    };
    const withCustom = createProfileRegistry([custom]);
    const requested: RequestedProfile = {
      name: 'my_4090',
      source: 'file',
      origin: 'tradelab.config.yaml:2:10',
    };
    const choice = chooseProfile(withCustom, requested, detection(RTX_4090));
    expect(choice.profile.name).toBe('my_4090');
    expect(choice.mismatch).toBeUndefined();
    expect(choice.freeBytes).toBe((24564 - 1564) * MIB);
  });

  it('keeps free memory when the requested profile is the one a derived profile came from', () => {
    const laptop = gpu(0, 'NVIDIA GeForce RTX 4090 Laptop GPU', 16376, 376);
    const requested: RequestedProfile = { name: 'rtx_4080', source: 'flag', origin: '--profile' };
    const choice = chooseProfile(registry, requested, detection(laptop));
    expect(choice.matched[0]?.profile.basedOn).toBe('rtx_4080');
    expect(choice.mismatch).toBeUndefined();
    expect(choice.freeBytes).toBe(16000 * MIB);
  });

  it('gives no free memory when the detected card did not report used memory', () => {
    const choice = chooseProfile(registry, undefined, detection(gpu(0, 'NVIDIA H200', 143771)));
    expect(choice.profile.name).toBe('h200');
    expect(choice.freeBytes).toBeUndefined();
  });

  it('never reports negative free memory', () => {
    const odd = gpu(0, 'NVIDIA GeForce RTX 4090', 24564, 30000);
    expect(chooseProfile(registry, undefined, detection(odd)).freeBytes).toBe(0);
  });

  it('has no mismatch when a profile is requested and nothing was detected', () => {
    const choice = chooseProfile(registry, FLAG, detection());
    expect(choice.profile.name).toBe('h100');
    expect(choice.mismatch).toBeUndefined();
    expect(choice.freeBytes).toBeUndefined();
    expect(chooseProfile(registry, FLAG, undefined).mismatch).toBeUndefined();
  });
});

describe('chooseProfile with several GPUs', () => {
  const registry = createProfileRegistry();

  it('plans for the card with the most memory, keeping each card matched', () => {
    const small = gpu(0, 'NVIDIA GeForce RTX 3070', 8192, 200);
    const big = gpu(1, 'NVIDIA GeForce RTX 4090', 24564, 1000);
    const choice = chooseProfile(registry, undefined, detection(small, big));
    expect(choice.profile.name).toBe('rtx_4090');
    expect(choice.gpu).toBe(big);
    expect(choice.freeBytes).toBe((24564 - 1000) * MIB);
    expect(choice.matched.map((m) => [m.gpu.index, m.profile.name])).toEqual([
      [0, 'rtx_3070'],
      [1, 'rtx_4090'],
    ]);
    expect(choice.reason).toMatch(/; 2 GPUs found, planning for GPU 1 \(most memory\)$/);
  });

  it('takes the lowest index among equal cards', () => {
    const cards = [3, 1, 2].map((i) => gpu(i, 'NVIDIA H100 NVL', 95830, i));
    const choice = chooseProfile(registry, undefined, detection(...cards));
    expect(choice.profile.name).toBe('h100_94gb');
    expect(choice.gpu?.index).toBe(1);
    expect(choice.freeBytes).toBe((95830 - 1) * MIB);
  });

  it('flags a requested profile that is none of the cards, naming the biggest one', () => {
    const small = gpu(0, 'NVIDIA GeForce RTX 3070', 8192, 200);
    const big = gpu(1, 'NVIDIA GeForce RTX 4090', 24564, 1000);
    const choice = chooseProfile(registry, FLAG, detection(small, big));
    expect(choice.profile.name).toBe('h100');
    expect(choice.mismatch).toContain("is not this machine's NVIDIA GeForce RTX 4090 (rtx_4090)");
    expect(choice.gpu).toBeUndefined();
    expect(choice.freeBytes).toBeUndefined();
  });

  it('plans for the requested card when the machine has it, even if it is not the biggest', () => {
    // The user picked the 3070 of a 3070 + 4090 box: that is hardware detected here, not a mismatch.
    const small = gpu(0, 'NVIDIA GeForce RTX 3070', 8192, 200);
    const big = gpu(1, 'NVIDIA GeForce RTX 4090', 24564, 1000);
    const requested: RequestedProfile = { name: 'rtx_3070', source: 'flag', origin: '--profile' };
    const choice = chooseProfile(registry, requested, detection(small, big));
    expect(choice.profile.name).toBe('rtx_3070');
    expect(choice.mismatch).toBeUndefined();
    expect(choice.gpu).toBe(small);
    expect(choice.freeBytes).toBe((8192 - 200) * MIB);
  });
});

describe('chooseProfile without a GPU', () => {
  const registry = createProfileRegistry();

  it('falls back to cpu, source default, when detection is off', () => {
    const choice = chooseProfile(registry, undefined, undefined);
    expect(choice).toMatchObject({
      source: 'default',
      origin: 'no GPU found',
      reason: 'detection is off and no profile was named',
      matched: [],
      gpu: undefined,
      freeBytes: undefined,
      mismatch: undefined,
    });
    expect(choice.profile.name).toBe('cpu');
  });

  it('falls back to cpu, source default, when detection found nothing', () => {
    const choice = chooseProfile(registry, undefined, detection());
    expect(choice.profile.name).toBe('cpu');
    expect(choice.source).toBe('default');
    expect(choice.reason).toBe('no GPU found by nvidia-smi, rocm-smi, amd-smi or sysfs');
  });

  it('uses the cpu profile, as detected, for an unknown card without memory', () => {
    const choice = chooseProfile(registry, undefined, detection(gpu(0, 'NVIDIA GB10')));
    expect(choice.profile.name).toBe('cpu');
    expect(choice.source).toBe('detected');
    expect(choice.matched[0]?.how).toBe('unknown');
  });
});

describe('chooseProfile with an unknown requested name', () => {
  const registry = createProfileRegistry();

  it('throws UNKNOWN_PROFILE naming the input and a suggestion', () => {
    const requested: RequestedProfile = { name: 'rtx4080ti', source: 'flag', origin: '--profile' };
    const thrown = thrownBy(() => chooseProfile(registry, requested, detection(RTX_4090)));
    expect(thrown).toBeInstanceOf(TradelabError);
    const error = thrown as TradelabError;
    expect(error.code).toBe('UNKNOWN_PROFILE');
    expect(error.message).toMatch(/^unknown profile "rtx4080ti"; known: /);
    expect(error.message).toContain('did you mean rtx_4080');
  });

  it('throws UNKNOWN_PROFILE even when nothing was detected', () => {
    const requested: RequestedProfile = { name: 'banana', source: 'env', origin: 'GPU_PROFILE' };
    const thrown = thrownBy(() => chooseProfile(registry, requested, undefined));
    expect(thrown).toBeInstanceOf(TradelabError);
    expect((thrown as TradelabError).code).toBe('UNKNOWN_PROFILE');
  });

  it('throws AMBIGUOUS_PROFILE for an alias that names two cards', () => {
    const requested: RequestedProfile = { name: 'a100', source: 'flag', origin: '--profile' };
    const thrown = thrownBy(() => chooseProfile(registry, requested, undefined));
    expect(thrown).toBeInstanceOf(TradelabError);
    expect((thrown as TradelabError).code).toBe('AMBIGUOUS_PROFILE');
    expect((thrown as TradelabError).message).toContain('a100_40gb or a100_80gb');
  });
});
