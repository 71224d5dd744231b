import { describe, expect, it } from 'vitest';
import { TradelabError } from '../core/index.js';
import { AMBIGUOUS_ALIASES, BUILTIN_PROFILES } from './builtin-profiles.js';
import {
  createProfileRegistry,
  normalizeProfileName,
  type CustomProfileDefinition,
} from './profile-registry.js';
import { ProfileSpecSchema, type CustomProfileInput } from './profile-schema.js';
import { errorOf } from '../../test/support/assertions.js';

/** A custom definition as a config file would hand it over, located in a fake file. */
function custom(name: string, input: CustomProfileInput): CustomProfileDefinition {
  return { name, input, locate: (p) => 'file.yaml:' + p.map(String).join('.') };
}

const REQUIRED = [
  'rtx_3070',
  'rtx_4070_ti',
  'rtx_4080',
  'rtx_4090',
  'rtx_5080',
  'rtx_5090',
  'rtx_6000_ada',
  'l40s',
  'a100_40gb',
  'a100_80gb',
  'h100',
  'h100_94gb',
  'h200',
  'rx_7900_gre',
  'rx_7900_xtx',
  'mi300x',
  'cpu',
];

describe('built-in profiles', () => {
  it.each(Object.entries(BUILTIN_PROFILES))('%s validates against ProfileSpecSchema', (_, spec) => {
    const result = ProfileSpecSchema.safeParse(spec);
    expect(result.success ? [] : result.error.issues).toEqual([]);
  });

  it('has every profile the seeds name', () => {
    for (const name of REQUIRED) expect(Object.keys(BUILTIN_PROFILES)).toContain(name);
  });

  it('uses canonical names a user can type and a profile file can use', () => {
    for (const name of Object.keys(BUILTIN_PROFILES)) expect(name).toMatch(/^[a-z0-9][a-z0-9_]*$/);
  });

  it.each([
    ['rtx_3070', 8],
    ['rtx_4090', 24],
    ['rtx_5080', 16],
    ['rtx_5090', 32],
    ['h100', 80],
    ['h200', 141],
    ['rx_7900_gre', 16],
    ['rx_7900_xtx', 24],
    ['mi300x', 192],
    ['cpu', 0],
  ])('%s has %d GB of VRAM', (name, vramGb) => {
    expect(BUILTIN_PROFILES[name]?.vramGb).toBe(vramGb);
  });

  it.each([
    ['h100', 2.5],
    ['a100_80gb', 1.99],
    ['rtx_5090', 1.5],
  ])("%s costs seed 003's $%d per hour", (name, price) => {
    expect(BUILTIN_PROFILES[name]?.hourlyUsd).toBe(price);
  });

  it('prices local cards at 0', () => {
    const local = ['rtx_3070', 'rtx_4070_ti', 'rtx_4080', 'rtx_4090', 'rtx_5080'];
    for (const name of [...local, 'rx_7900_gre', 'rx_7900_xtx', 'cpu']) {
      expect(BUILTIN_PROFILES[name]?.hourlyUsd, name).toBe(0);
    }
  });

  it('says where each workload value comes from', () => {
    for (const [name, spec] of Object.entries(BUILTIN_PROFILES)) {
      expect(spec.notes.length, name).toBeGreaterThan(0);
      for (const workload of Object.values(spec.workloads)) {
        expect(workload.source, name).toMatch(/PyTorch original|ours/);
      }
    }
  });

  it('has match patterns that compile', () => {
    for (const [name, spec] of Object.entries(BUILTIN_PROFILES)) {
      for (const pattern of spec.match) {
        expect(() => new RegExp(pattern, 'i'), `${name}: ${pattern}`).not.toThrow();
      }
    }
  });

  it('gives every GPU profile a match pattern, and cpu none', () => {
    for (const [name, spec] of Object.entries(BUILTIN_PROFILES)) {
      if (name === 'cpu') expect(spec.match).toEqual([]);
      else expect(spec.match.length, name).toBeGreaterThan(0);
    }
  });

  it('never lets a name or alias mean two profiles', () => {
    const owners = new Map<string, Set<string>>();
    for (const [name, spec] of Object.entries(BUILTIN_PROFILES)) {
      for (const alias of [name, ...spec.aliases]) {
        const key = normalizeProfileName(alias);
        owners.set(key, (owners.get(key) ?? new Set()).add(name));
      }
    }
    const shared = [...owners].filter(([, names]) => names.size > 1).map(([key]) => key);
    expect(shared).toEqual([]);
  });

  it('keeps ambiguous aliases apart from the aliases of a single profile', () => {
    const single = new Set(
      Object.entries(BUILTIN_PROFILES).flatMap(([name, spec]) =>
        [name, ...spec.aliases].map(normalizeProfileName),
      ),
    );
    for (const [alias, choices] of Object.entries(AMBIGUOUS_ALIASES)) {
      expect(single.has(alias), alias).toBe(false);
      expect(choices.length, alias).toBeGreaterThan(1);
      for (const choice of choices) expect(Object.keys(BUILTIN_PROFILES)).toContain(choice);
    }
  });

  it.each(Object.entries(AMBIGUOUS_ALIASES))(
    'makes the ambiguous alias %j an error listing %j',
    (alias, choices) => {
      const error = errorOf(() => createProfileRegistry().resolve(alias));
      expect(error.code).toBe('AMBIGUOUS_PROFILE');
      expect(error.details?.choices).toEqual(choices);
    },
  );
});

describe('normalizeProfileName', () => {
  it('drops case, separators and vendor words', () => {
    expect(normalizeProfileName('RTX_4090')).toBe('rtx4090');
    expect(normalizeProfileName('NVIDIA GeForce RTX 4090')).toBe('rtx4090');
    expect(normalizeProfileName('AMD Radeon RX 7900-XTX')).toBe('rx7900xtx');
    expect(normalizeProfileName('a100.80')).toBe('a10080');
  });
});

describe('resolve', () => {
  const registry = createProfileRegistry();

  it.each([
    ['rtx_4090', 'rtx_4090'],
    ['RTX_4090', 'rtx_4090'],
    ['rtx4090', 'rtx_4090'],
    ['4090', 'rtx_4090'],
    ['NVIDIA RTX 4090', 'rtx_4090'],
    ['GeForce RTX 4090', 'rtx_4090'],
    ['rtx-4090', 'rtx_4090'],
    ['rtx5080', 'rtx_5080'],
    ['RTX 5080', 'rtx_5080'],
    ['H100', 'h100'],
    ['h100 nvl', 'h100_94gb'],
    ['A100-80', 'a100_80gb'],
    ['a100 40', 'a100_40gb'],
    ['7900 XTX', 'rx_7900_xtx'],
    ['RX 7900 GRE', 'rx_7900_gre'],
    ['MI300X', 'mi300x'],
    ['CPU', 'cpu'],
  ])('resolves %j to %s', (input, name) => {
    expect(registry.resolve(input).name).toBe(name);
  });

  it('marks built-ins as such', () => {
    const profile = registry.resolve('4090');
    expect(profile.origin).toBe('builtin');
    expect(profile.basedOn).toBeUndefined();
    expect(profile.vramGb).toBe(24);
  });

  it('lists the profiles in table order, built-ins first', () => {
    expect(registry.all().map((p) => p.name)).toEqual(Object.keys(BUILTIN_PROFILES));
    expect(registry.get('h200')?.vramGb).toBe(141);
    expect(registry.get('RTX_4090')).toBeUndefined(); // get() takes canonical names only
  });

  it.each([
    ['a100', ['a100_40gb', 'a100_80gb']],
    ['A100', ['a100_40gb', 'a100_80gb']],
    ['7900', ['rx_7900_gre', 'rx_7900_xtx']],
    ['RX 7900', ['rx_7900_gre', 'rx_7900_xtx']],
    ['amd', ['rx_7900_gre', 'rx_7900_xtx', 'mi300x']],
  ])('refuses the ambiguous %j, listing the choices', (input, choices) => {
    const error = errorOf(() => registry.resolve(input));
    expect(error.code).toBe('AMBIGUOUS_PROFILE');
    expect(error.exitCode).toBe(2);
    for (const choice of choices) expect(error.message).toContain(choice);
    expect(error.details?.choices).toEqual(choices);
    expect(error.hint).toContain(`--profile ${choices[0] ?? ''}`);
  });

  it('refuses an unknown name, listing the known ones and the closest', () => {
    const error = errorOf(() => registry.resolve('rtx4080ti'));
    expect(error.code).toBe('UNKNOWN_PROFILE');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('unknown profile "rtx4080ti"');
    for (const name of REQUIRED) expect(error.message).toContain(name);
    expect(error.message).toContain('did you mean rtx_4080?');
    expect(error.details?.suggestion).toBe('rtx_4080');
  });

  it('suggests nothing rather than a random profile for a far-off name', () => {
    const error = errorOf(() => registry.resolve('banana'));
    expect(error.code).toBe('UNKNOWN_PROFILE');
    expect(error.message).not.toContain('did you mean');
  });

  it('suggests nothing for a bare vendor word', () => {
    // "nvidia" normalizes to an empty string, a prefix of every name: no name is close to it.
    const error = errorOf(() => registry.resolve('nvidia'));
    expect(error.code).toBe('UNKNOWN_PROFILE');
    expect(error.message).not.toContain('did you mean');
  });
});

describe('custom profiles', () => {
  it('extends a built-in, overriding fields one by one', () => {
    const registry = createProfileRegistry([
      custom('my_4090', {
        extends: 'rtx_4090',
        vramGb: 20,
        hourlyUsd: 0.4,
        workloads: { drl: { maxWorkers: 3 }, forecast: { batchSize: { '1h': 640 } } },
      }),
    ]);
    const profile = registry.resolve('my_4090');
    const base = BUILTIN_PROFILES.rtx_4090;
    expect(profile.origin).toBe('custom');
    expect(profile.basedOn).toBe('rtx_4090');
    expect(profile.vramGb).toBe(20);
    expect(profile.hourlyUsd).toBe(0.4);
    expect(profile.displayName).toBe(base?.displayName);
    expect(profile.memoryBandwidthGBs).toBe(base?.memoryBandwidthGBs);
    // drl: one field overridden, the rest inherited, and marked as ours
    expect(profile.workloads.drl).toEqual({
      ...base?.workloads.drl,
      maxWorkers: 3,
      source: 'custom',
    });
    // forecast: batch sizes merge per timeframe
    expect(profile.workloads.forecast.batchSize).toEqual({ '1d': 512, '1h': 640 });
    expect(profile.workloads.forecast.memoryPerModelGb).toEqual(
      base?.workloads.forecast.memoryPerModelGb,
    );
    // untouched workloads keep their seed attribution
    expect(profile.workloads.tcn).toEqual(base?.workloads.tcn);
    // the built-in itself is unchanged
    expect(registry.get('rtx_4090')?.vramGb).toBe(24);
    expect(registry.get('rtx_4090')?.workloads.drl.maxWorkers).toBe(16);
    expect(
      registry
        .all()
        .map((p) => p.name)
        .at(-1),
    ).toBe('my_4090');
  });

  it('keeps a source the custom definition gives', () => {
    const registry = createProfileRegistry([
      custom('measured', {
        extends: 'rtx_4090',
        workloads: { drl: { maxWorkers: 5, source: 'measured on our box' } },
      }),
    ]);
    expect(registry.resolve('measured').workloads.drl.source).toBe('measured on our box');
  });

  it('extends a built-in through an alias', () => {
    const registry = createProfileRegistry([custom('mine', { extends: 'RTX 5090', vramGb: 30 })]);
    expect(registry.resolve('mine').basedOn).toBe('rtx_5090');
  });

  it('can shadow a built-in by extending the built-in of the same name', () => {
    const registry = createProfileRegistry([
      custom('rtx_4090', { extends: 'rtx_4090', hourlyUsd: 0.35 }),
    ]);
    const profile = registry.resolve('4090');
    expect(profile.name).toBe('rtx_4090');
    expect(profile.origin).toBe('custom');
    expect(profile.basedOn).toBe('rtx_4090');
    expect(profile.hourlyUsd).toBe(0.35);
    expect(profile.vramGb).toBe(24);
    expect(registry.get('rtx_4090')?.origin).toBe('custom');
    expect(registry.all().filter((p) => p.name === 'rtx_4090')).toHaveLength(1);
  });

  it('lets a custom extend a shadowed built-in, whatever the order', () => {
    const registry = createProfileRegistry([
      custom('child', { extends: 'rtx_4090', vramGb: 22 }),
      custom('rtx_4090', { extends: 'rtx_4090', hourlyUsd: 0.35 }),
    ]);
    const child = registry.resolve('child');
    expect(child.hourlyUsd).toBe(0.35);
    expect(child.vramGb).toBe(22);
    expect(child.basedOn).toBe('rtx_4090');
  });

  it('follows a chain of extends across customs, defined in any order', () => {
    const registry = createProfileRegistry([
      custom('grandchild', { extends: 'child', hourlyUsd: 0.9 }),
      custom('child', { extends: 'parent', workloads: { drl: { maxWorkers: 2 } } }),
      custom('parent', { extends: 'h100', vramGb: 64 }),
    ]);
    const profile = registry.resolve('grandchild');
    expect(profile.basedOn).toBe('child');
    expect(profile.vramGb).toBe(64);
    expect(profile.hourlyUsd).toBe(0.9);
    expect(profile.workloads.drl.maxWorkers).toBe(2);
    expect(profile.displayName).toBe('NVIDIA H100 80GB');
    expect(registry.resolve('child').basedOn).toBe('parent');
    expect(registry.resolve('parent').basedOn).toBe('h100');
  });

  it('refuses a cycle of extends', () => {
    const error = errorOf(() =>
      createProfileRegistry([
        custom('a', { extends: 'b', vramGb: 8 }),
        custom('b', { extends: 'a', vramGb: 8 }),
      ]),
    );
    expect(error.code).toBe('PROFILE_INVALID');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('file.yaml:extends');
    expect(error.message).toContain('extends itself');
    expect(error.message).toMatch(/a -> b/);
  });

  it('refuses a custom that extends only itself', () => {
    const error = errorOf(() => createProfileRegistry([custom('loop', { extends: 'loop' })]));
    expect(error.code).toBe('PROFILE_INVALID');
    expect(error.message).toContain('extends itself');
  });

  it('refuses to extend an unknown profile, saying where and suggesting a name', () => {
    const error = errorOf(() =>
      createProfileRegistry([custom('mine', { extends: 'rtx_4009', vramGb: 20 })]),
    );
    expect(error.code).toBe('PROFILE_INVALID');
    expect(error.exitCode).toBe(2);
    expect(error.message.startsWith('file.yaml:extends: ')).toBe(true);
    expect(error.message).toContain('unknown profile "rtx_4009"');
    expect(error.message).toContain('did you mean rtx_4090?');
    expect(error.cause).toBeInstanceOf(TradelabError);
  });

  it('refuses to extend an ambiguous alias, listing the choices', () => {
    const error = errorOf(() => createProfileRegistry([custom('mine', { extends: 'a100' })]));
    expect(error.code).toBe('PROFILE_INVALID');
    expect(error.message).toContain('file.yaml:extends');
    expect(error.message).toContain('a100_40gb or a100_80gb');
  });

  it('accepts a complete custom profile without extends', () => {
    const { rtx_3070 } = BUILTIN_PROFILES;
    if (rtx_3070 === undefined) throw new Error('rtx_3070 is missing');
    const input: CustomProfileInput = {
      ...rtx_3070,
      displayName: 'Lab card',
      vendor: 'other',
      aliases: ['labcard'],
      match: ['\\bLab Card\\b'],
    };
    const registry = createProfileRegistry([custom('lab_card', input)]);
    const profile = registry.resolve('LABCARD');
    expect(profile.name).toBe('lab_card');
    expect(profile.origin).toBe('custom');
    expect(profile.basedOn).toBeUndefined();
    expect(profile.vendor).toBe('other');
    expect(profile.workloads).toEqual(rtx_3070.workloads);
  });

  it('refuses an incomplete custom without extends, naming each missing field', () => {
    const error = errorOf(() =>
      createProfileRegistry([custom('half', { displayName: 'Half', vramGb: 8 })]),
    );
    expect(error.code).toBe('PROFILE_INVALID');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('file.yaml:vendor: profiles.half.vendor: is required');
    expect(error.message).toContain('profiles.half.workloads: is required');
    expect(error.message).not.toContain('profiles.half.vramGb');
    expect(error.hint).toContain('extends');
  });

  it('refuses a bad override of an extended profile with the key and the rule', () => {
    const error = errorOf(() =>
      createProfileRegistry([
        custom('bad', { extends: 'rtx_4090', workloads: { drl: { maxWorkers: 0 } } }),
      ]),
    );
    expect(error.code).toBe('PROFILE_INVALID');
    expect(error.message).toContain('file.yaml:workloads.drl.maxWorkers');
    expect(error.message).toContain('profiles.bad.workloads.drl.maxWorkers');
    expect(error.message).not.toContain('is required');
  });

  it('refuses a match pattern that is not a regular expression', () => {
    const error = errorOf(() =>
      createProfileRegistry([custom('odd', { extends: 'rtx_4090', match: ['ok', 'RTX (4090'] })]),
    );
    expect(error.code).toBe('PROFILE_INVALID');
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('file.yaml:match.1');
    expect(error.message).toContain('"RTX (4090"');
    expect(error.message).toContain('not a valid regular expression');
  });

  it('resolves a custom profile by its own aliases', () => {
    const registry = createProfileRegistry([
      custom('team_box', { extends: 'rtx_5090', aliases: ['teambox', 'our 5090'] }),
    ]);
    expect(registry.resolve('TeamBox').name).toBe('team_box');
    expect(registry.resolve('Our-5090').name).toBe('team_box');
  });

  it('does not make a built-in alias ambiguous by extending the built-in', () => {
    // A custom under another name does not inherit the built-in's aliases: "4090" keeps meaning
    // the built-in rather than becoming an error.
    const registry = createProfileRegistry([
      custom('my_4090', { extends: 'rtx_4090', vramGb: 20 }),
    ]);
    expect(() => registry.resolve('4090')).not.toThrow();
    expect(registry.resolve('4090').name).toBe('rtx_4090');
    expect(registry.resolve('my_4090').aliases).toEqual([]);
    expect(registry.resolve('rtx_4090').name).toBe('rtx_4090');
  });

  it('lists custom names among the known ones when a name is unknown', () => {
    const registry = createProfileRegistry([custom('team_box', { extends: 'rtx_5090' })]);
    const error = errorOf(() => registry.resolve('team_bux'));
    expect(error.code).toBe('UNKNOWN_PROFILE');
    expect(error.message).toContain('team_box');
    expect(error.message).toContain('did you mean team_box?');
  });
});
