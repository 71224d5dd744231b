import { closestMatch, TradelabError } from '../core/index.js';
import { AMBIGUOUS_ALIASES, BUILTIN_PROFILES } from './builtin-profiles.js';
import {
  ProfileSpecSchema,
  type CustomProfileInput,
  type GpuProfile,
  type ProfileSpec,
} from './profile-schema.js';

/** A custom profile definition and where it was written (see config's `CustomProfileSource`). */
export interface CustomProfileDefinition {
  name: string;
  input: CustomProfileInput;
  /** `file:line:col` of a key path inside the definition. */
  locate(keyPath: readonly PropertyKey[]): string;
}

/** The profiles known to one run: built-ins plus the project's custom profiles. */
export interface ProfileRegistry {
  /** Every profile, built-ins first, in table order. */
  all(): GpuProfile[];
  /** A profile by canonical name. */
  get(name: string): GpuProfile | undefined;
  /**
   * A profile by name or alias, matched ignoring case, spaces, `-`, `_` and a vendor prefix.
   * Throws UNKNOWN_PROFILE (with the closest match) or AMBIGUOUS_PROFILE (with the choices).
   */
  resolve(input: string): GpuProfile;
}

/** Lowercases and drops separators and vendor words, so `RTX_4090`, `rtx4090` and `NVIDIA RTX 4090` meet. */
export function normalizeProfileName(input: string): string {
  return input
    .toLowerCase()
    .replace(/\b(nvidia|geforce|amd|radeon)\b/g, '')
    .replace(/[\s_\-.]/g, '');
}

/** Builds the registry, resolving each custom profile's `extends` and validating the result. */
export function createProfileRegistry(
  customs: readonly CustomProfileDefinition[] = [],
): ProfileRegistry {
  const byName = new Map<string, GpuProfile>();
  for (const [name, spec] of Object.entries(BUILTIN_PROFILES)) {
    byName.set(name, { ...spec, name, origin: 'builtin' });
  }
  const pending = new Map(customs.map((c) => [c.name, c]));
  const resolving = new Set<string>();

  const lookup = (input: string): GpuProfile => {
    const direct = pending.get(input);
    if (direct !== undefined) return build(direct);
    return resolveIn(byName, input);
  };

  const build = (custom: CustomProfileDefinition): GpuProfile => {
    if (resolving.has(custom.name)) {
      throw new TradelabError(
        'PROFILE_INVALID',
        `${custom.locate(['extends'])}: profile "${custom.name}" extends itself through ${[...resolving].join(' -> ')}`,
        { hint: 'make the chain of `extends` end at a built-in profile' },
      );
    }
    resolving.add(custom.name);
    let base: GpuProfile | undefined;
    const parent = custom.input.extends;
    if (parent !== undefined) {
      // A custom profile may shadow a built-in of the same name and extend it.
      const builtin = parent === custom.name ? byName.get(parent) : undefined;
      try {
        base = builtin ?? lookup(parent);
      } catch (error) {
        if (error instanceof TradelabError && error.code !== 'PROFILE_INVALID') {
          throw new TradelabError(
            'PROFILE_INVALID',
            `${custom.locate(['extends'])}: ${error.message}`,
            {
              hint: error.hint ?? 'extend a profile listed by `tradelab profiles list`',
              cause: error,
            },
          );
        }
        throw error;
      }
    }
    const merged = mergeProfile(base, custom.input, base?.name === custom.name);
    const result = ProfileSpecSchema.safeParse(merged);
    if (!result.success) {
      const problems = result.error.issues.map((issue) => {
        const path = issue.path.map(String).join('.');
        const missing = base === undefined && valueAtPath(merged, issue.path) === undefined;
        return `${custom.locate(issue.path)}: profiles.${custom.name}.${path}: ${missing ? 'is required (or use `extends` to start from a built-in)' : issue.message}`;
      });
      throw new TradelabError('PROFILE_INVALID', problems.join('\n'), {
        hint:
          base === undefined
            ? `give every field, or start from a built-in with "extends: rtx_4090" and override what differs`
            : 'fix the value in the file',
      });
    }
    for (const [i, pattern] of result.data.match.entries()) {
      try {
        new RegExp(pattern, 'i');
      } catch (cause) {
        throw new TradelabError(
          'PROFILE_INVALID',
          `${custom.locate(['match', i])}: profiles.${custom.name}.match[${i}]: ${JSON.stringify(pattern)} is not a valid regular expression`,
          { hint: 'escape special characters, e.g. "RTX 4090 D"', cause },
        );
      }
    }
    const profile: GpuProfile = { ...result.data, name: custom.name, origin: 'custom' };
    if (base !== undefined) profile.basedOn = base.name;
    byName.set(custom.name, profile);
    pending.delete(custom.name);
    resolving.delete(custom.name);
    return profile;
  };

  for (const custom of customs) if (pending.has(custom.name)) build(custom);

  return {
    all: () => [...byName.values()],
    get: (name) => byName.get(name),
    resolve: (input) => resolveIn(byName, input),
  };
}

function resolveIn(byName: ReadonlyMap<string, GpuProfile>, input: string): GpuProfile {
  const exact = byName.get(input);
  if (exact !== undefined) return exact;
  const wanted = normalizeProfileName(input);
  const profiles = [...byName.values()];
  // Custom profiles come last in the map; search them first so they can take over an alias.
  const byCanonical = profiles.reverse().find((p) => normalizeProfileName(p.name) === wanted);
  if (byCanonical !== undefined) return byCanonical;
  const byAlias = profiles.filter((p) => p.aliases.some((a) => normalizeProfileName(a) === wanted));
  if (byAlias.length === 1 && byAlias[0] !== undefined) return byAlias[0];
  // Vendor words are stripped for matching, so look `amd` up as typed too.
  const loose = input.toLowerCase().replace(/[\s_\-.]/g, '');
  const ambiguous =
    byAlias.length > 1
      ? byAlias.map((p) => p.name)
      : (AMBIGUOUS_ALIASES[wanted] ?? AMBIGUOUS_ALIASES[loose]);
  if (ambiguous !== undefined) {
    throw new TradelabError(
      'AMBIGUOUS_PROFILE',
      `profile "${input}" is ambiguous: it could be ${ambiguous.join(' or ')}`,
      {
        hint: `name one of them, e.g. --profile ${ambiguous[0] ?? ''}`,
        details: { input, choices: ambiguous },
      },
    );
  }
  const names = [...byName.keys()];
  const candidates = [
    ...names,
    ...profiles.flatMap((p) => p.aliases.map((a) => normalizeProfileName(a))),
  ];
  const guess = closestMatch(wanted, candidates);
  const guessName =
    guess === undefined
      ? undefined
      : (names.find((n) => n === guess) ??
        profiles.find((p) => p.aliases.some((a) => normalizeProfileName(a) === guess))?.name);
  throw new TradelabError(
    'UNKNOWN_PROFILE',
    `unknown profile "${input}"; known: ${names.join(', ')}${guessName === undefined ? '' : `; did you mean ${guessName}?`}`,
    {
      hint: 'run `tradelab profiles list`, or define a custom profile in tradelab.config.yaml',
      details: { input, known: names, suggestion: guessName },
    },
  );
}

function valueAtPath(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

/**
 * Merges a custom definition over its base; workload settings merge one level deeper. Aliases are
 * inherited only by a custom that replaces the built-in of its own name (elsewhere `4090` keeps
 * meaning the built-in); `match` patterns are, so detection picks a custom that extends the card's.
 */
function mergeProfile(
  base: GpuProfile | undefined,
  input: CustomProfileInput,
  replacesBase: boolean,
): unknown {
  const { extends: _parent, workloads, ...fields } = input;
  const defined = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
  if (base === undefined) return { ...defined, workloads };
  const { name: _name, origin: _origin, basedOn: _basedOn, ...spec } = base;
  const baseSpec: ProfileSpec = spec;
  const mergedWorkloads: Record<string, unknown> = { ...baseSpec.workloads };
  for (const [key, override] of Object.entries(workloads ?? {})) {
    const current = (baseSpec.workloads as Record<string, Record<string, unknown>>)[key] ?? {};
    const next: Record<string, unknown> = { ...current };
    for (const [field, value] of Object.entries(override ?? {})) {
      if (value === undefined) continue;
      const existing = current[field];
      next[field] =
        typeof value === 'object' && typeof existing === 'object'
          ? { ...existing, ...value }
          : value;
    }
    // A custom workload override is ours, not the seed's, unless it says otherwise.
    if (override?.source === undefined && Object.keys(override ?? {}).length > 0)
      next.source = 'custom';
    mergedWorkloads[key] = next;
  }
  const aliases = replacesBase ? baseSpec.aliases : [];
  return { ...baseSpec, aliases, ...defined, workloads: mergedWorkloads };
}
