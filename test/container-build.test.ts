import { execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, lstatSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { jsonLines, REPO_ROOT, tempDir } from './support/run-cli.js';

/*
 * The container image without Docker: the Dockerfile's build stage does nothing but run
 * scripts/container-build.sh, so running that script on a copy of the build context (the working
 * tree's files git tracks or would, committed or not, less .dockerignore's) and then the pruned app
 * from another directory is what the image runs, less the image. It needs the
 * npm registry (npm ci), as the image build does, and a C/C++ toolchain. The files Docker reads
 * (Dockerfile, compose files) are checked statically for what that test cannot see.
 */

const run = promisify(execFile);
const BUILD_MS = 420_000;
const RUN_MS = 60_000;

/** The script's environment: this test's Node first, proxies, none of an outer npm's settings. */
const env: Record<string, string> = {
  PATH: `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`,
  HOME: process.env.HOME ?? '/tmp',
  ...Object.fromEntries(
    ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy']
      .map((name) => [name, process.env[name]])
      .filter((entry): entry is [string, string] => entry[1] !== undefined),
  ),
};

/** The patterns of `.dockerignore`, in order. */
const dockerignore = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));

/** A `.dockerignore` pattern as a regex source: `**` any path, `*` and `?` within one name. */
function globSource(pattern: string): string {
  return pattern
    .split(/(\*\*\/|\*\*|\*|\?)/)
    .map((part) => {
      if (part === '**/') return '(?:.*/)?';
      if (part === '**') return '.*';
      if (part === '*') return '[^/]*';
      if (part === '?') return '[^/]';
      return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
}

/**
 * Whether `.dockerignore` leaves `file` (relative to the root) out of the build context, as Docker
 * reads it: patterns are anchored at the root, one that names a directory takes what is under it,
 * and the last matching pattern wins (`!` takes a file back).
 */
function dockerIgnores(file: string): boolean {
  let ignored = false;
  for (const line of dockerignore) {
    const negated = line.startsWith('!');
    const pattern = (negated ? line.slice(1) : line).replace(/^\/+|\/+$/g, '');
    if (new RegExp(`^${globSource(pattern)}(?:/.*)?$`).test(file)) ignored = !negated;
  }
  return ignored;
}

/**
 * Copies into `to` what `docker build .` gets of the working tree: the files git tracks or would
 * (committed or not), less what `.dockerignore` leaves out.
 */
async function copyBuildContext(to: string): Promise<void> {
  const { stdout } = await run(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 },
  );
  for (const file of stdout.split('\0')) {
    if (file === '' || dockerIgnores(file)) continue;
    const from = join(REPO_ROOT, file);
    // Deleted in the working tree but still in the index: not there for Docker either.
    if (!lstatSync(from, { throwIfNoEntry: false })) continue;
    cpSync(from, join(to, file), { verbatimSymlinks: true });
  }
}

/** Runs the built app's CLI from `cwd`, as the image's entry point would, without GPU probing. */
function tradelab(app: string, args: readonly string[], cwd: string) {
  return run(process.execPath, [join(app, 'bin', 'tradelab.js'), ...args], {
    cwd,
    env: { PATH: '/usr/bin:/bin', HOME: env.HOME, TRADELAB_DETECT: 'false' },
    maxBuffer: 16 * 1024 * 1024,
  });
}

describe.runIf(process.platform === 'linux' || process.env.CI === 'true')(
  'scripts/container-build.sh on a copy of the working tree',
  () => {
    let app = '';
    let log = '';

    beforeAll(async () => {
      app = join(tempDir('tradelab-container-'), 'app');
      await copyBuildContext(app);
      expect(existsSync(join(app, 'node_modules'))).toBe(false);
      const result = await run('bash', [join(app, 'scripts', 'container-build.sh'), app], {
        cwd: app,
        env,
        maxBuffer: 64 * 1024 * 1024,
      });
      log = result.stderr;
    }, BUILD_MS);

    it('compiles the app', () => {
      expect(log).toMatch(/^container-build: built .*: native GEMM ok/m);
      expect(existsSync(join(app, 'dist', 'cli', 'run.js'))).toBe(true);
      expect(existsSync(join(app, 'dist', 'index.d.ts'))).toBe(true);
    });

    it('keeps the production dependencies only', () => {
      const installed = (name: string) => existsSync(join(app, 'node_modules', name));
      expect(['vitest', 'typescript', 'eslint', 'prettier'].filter(installed)).toEqual([]);
      const runtime = [
        'yaml',
        'zod',
        'pg',
        'better-sqlite3',
        '@tensorflow/tfjs',
        'hono',
        '@hono/node-server',
        '@hono/zod-openapi',
        'uplot',
      ];
      expect(runtime.filter((name) => !installed(name))).toEqual([]);
    });

    it('builds the native GEMM, and better-sqlite3 from source (no prebuilt binary)', () => {
      const status = JSON.parse(
        readFileSync(join(app, 'native', 'gemm', 'build-status.json'), 'utf8'),
      ) as { ok: boolean; reason: string; addon: string | null };
      expect(status).toMatchObject({ ok: true, reason: 'built' });
      expect(existsSync(join(app, status.addon ?? 'none'))).toBe(true);
      // A prebuilt binary (prebuild-install's download from GitHub) comes without object files.
      const sqlite = join(app, 'node_modules', 'better-sqlite3', 'build', 'Release');
      expect(existsSync(join(sqlite, 'better_sqlite3.node'))).toBe(true);
      expect(existsSync(join(sqlite, 'obj.target'))).toBe(true);
    });

    it(
      'runs from a separate, empty project directory, with the native GEMM',
      async () => {
        const project = tempDir('tradelab-container-project-');
        const profiles = await tradelab(app, ['profiles', 'list'], project);
        expect(profiles.stdout).toMatch(/^rtx_4090\s/m);
        expect(profiles.stdout).toMatch(/^cpu\s/m);

        const backends = await tradelab(app, ['backends', '--json'], project);
        const wasm = jsonLines(backends.stdout).find((row) => row.name === 'wasm');
        expect(wasm?.nativeGemm).toMatchObject({ available: true });
      },
      RUN_MS,
    );

    it(
      "serves as the image's command does: token, health, the dashboard and its charts' module",
      async () => {
        const project = tempDir('tradelab-container-serve-');
        const child = spawn(
          process.execPath,
          [join(app, 'bin', 'tradelab.js'), 'serve', '--host', '0.0.0.0', '--port', '0', '--json'],
          {
            cwd: project,
            env: { PATH: '/usr/bin:/bin', HOME: env.HOME, TRADELAB_DETECT: 'false' },
          },
        );
        try {
          let stdout = '';
          let stderr = '';
          child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
          const url = await new Promise<string>((resolve, reject) => {
            child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
              stdout += chunk;
              const line = stdout.split('\n').find((l) => l.startsWith('{'));
              if (line !== undefined) resolve((JSON.parse(line) as { url: string }).url);
            });
            child.on('exit', (code) => {
              reject(new Error(`serve exited ${code ?? '?'}: ${stderr}`));
            });
          });
          const base = url.replace('0.0.0.0', '127.0.0.1');
          const token = /^token: (\S+)$/m.exec(stderr)?.[1] ?? '';
          expect(token).not.toBe('');
          expect((await fetch(`${base}/api/health`)).status).toBe(200);
          const auth = { headers: { authorization: `Bearer ${token}` } };
          const page = await fetch(`${base}/`, auth);
          expect(page.status).toBe(200);
          expect(await page.text()).toContain('/assets/main.js');
          expect((await fetch(`${base}/assets/main.js`, auth)).status).toBe(200);
          expect((await fetch(`${base}/assets/uPlot.esm.js`, auth)).status).toBe(200);
        } finally {
          child.kill('SIGTERM');
        }
      },
      RUN_MS,
    );
  },
);

describe('scripts/container-build.sh arguments', () => {
  it('refuses a directory that is not a checkout, before running npm', async () => {
    const script = join(REPO_ROOT, 'scripts', 'container-build.sh');
    const empty = tempDir('tradelab-container-empty-');
    const failure = await run('bash', [script, empty], { env }).then(
      () => undefined,
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toContain(`error: ${empty} has no package.json and package-lock.json`);
  });
});

/** One Dockerfile stage: its FROM line and its instructions, continuation lines joined. */
interface Stage {
  from: string;
  name: string | undefined;
  instructions: string[];
}

/** The Dockerfile's stages, in order. */
function dockerfileStages(text: string): Stage[] {
  const instructions = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(instruction);
    if (from) stages.push({ from: from[1] ?? '', name: from[2], instructions: [] });
    else stages.at(-1)?.instructions.push(instruction);
  }
  return stages;
}

describe('the Dockerfile', () => {
  const stages = dockerfileStages(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'));
  const build = stages.find((stage) => stage.name === 'build');
  const runtime = stages.at(-1);

  it('builds with scripts/container-build.sh on node bookworm, with python3, g++ and make', () => {
    expect(build?.from).toMatch(/^node:\$\{NODE_MAJOR\}-bookworm$/);
    const runs = build?.instructions.filter((line) => line.startsWith('RUN ')) ?? [];
    expect(runs.some((line) => /\bpython3\b.*\bg\+\+.*\bmake\b/.test(line))).toBe(true);
    expect(runs.at(-1)).toMatch(/^RUN bash scripts\/container-build\.sh \/app$/);
  });

  it('runs the pruned app as a non-root user on the same Node.js major, slim', () => {
    // The addons are compiled for the build stage's Node.js: the runtime must run the same one.
    expect(runtime?.from).toBe('node:${NODE_MAJOR}-bookworm-slim');
    const lines = runtime?.instructions ?? [];
    expect(lines).toContain('COPY --from=build /app /app');
    const user = lines.filter((line) => line.startsWith('USER ')).at(-1);
    expect(user).toBe('USER tradelab');
    expect(lines.some((line) => /useradd [^&]*--uid 10001\b[^&]* tradelab\b/.test(line))).toBe(
      true,
    );
    expect(lines.some((line) => /apt-get install .*\blibvulkan1\b/.test(line))).toBe(true);
    expect(lines).toContain('WORKDIR /project');
    expect(lines).toContain('EXPOSE 8321');
    expect(lines).toContain('ENTRYPOINT ["node", "/app/bin/tradelab.js"]');
    expect(lines).toContain('CMD ["serve", "--host", "0.0.0.0", "--port", "8321"]');
    expect(lines.find((line) => line.startsWith('HEALTHCHECK '))).toContain(
      'http://127.0.0.1:8321/api/health',
    );
  });

  it('gets no node_modules, build output, data or secrets from this machine', () => {
    const paths = [
      'node_modules/yaml/package.json',
      'dist/cli/run.js',
      'native/gemm/build/Release/tradelab_gemm.node',
      'native/gemm/build-status.json',
      '.git/HEAD',
      '.tradelab/server-token.json',
      'tradelab.db',
      'tradelab.db-wal',
      'runs/syn/model.json',
      '.env',
    ];
    expect(paths.filter((path) => !dockerIgnores(path))).toEqual([]);
    expect(dockerIgnores('src/cli/run.ts')).toBe(false);
    expect(dockerIgnores('native/gemm/sgemm.c')).toBe(false);
  });
});

/** The parts of a compose file these tests read. */
interface ComposeFile {
  services: Record<
    string,
    {
      build?: string | { context: string; args?: Record<string, string> };
      image?: string;
      ports?: string[];
      environment?: Record<string, string>;
      volumes?: string[];
      devices?: string[];
      depends_on?: Record<string, { condition: string }>;
      healthcheck?: { test: string[] };
      deploy?: { resources: { reservations: { devices: { driver: string }[] } } };
    }
  >;
  volumes?: Record<string, unknown>;
}

/** A compose file, with `${NAME:-default}` replaced by its default (an empty environment). */
function composeFile(name: string): ComposeFile {
  const text = readFileSync(join(REPO_ROOT, name), 'utf8');
  return parse(text.replace(/\$\{\w+:-([^}]*)\}/g, '$1')) as ComposeFile;
}

describe('compose.yaml', () => {
  const compose = composeFile('compose.yaml');
  const { tradelab, postgres } = compose.services;

  it('builds the service here and publishes it on the loopback address only', () => {
    expect(Object.keys(compose.services).sort()).toEqual(['postgres', 'tradelab']);
    expect(tradelab?.build).toBe('.');
    expect(tradelab?.ports).toEqual(['127.0.0.1:8321:8321']);
  });

  it('keeps the project and the database in named volumes', () => {
    const named = Object.keys(compose.volumes ?? {});
    expect(named.sort()).toEqual(['pgdata', 'project']);
    expect(tradelab?.volumes).toEqual(['project:/project']);
    expect(postgres?.volumes).toEqual(['pgdata:/var/lib/postgresql/data']);
  });

  it('stores studies in its PostgreSQL server, once that is ready', () => {
    expect(postgres?.image).toBe('postgres:16');
    const db = postgres?.environment ?? {};
    expect(tradelab?.environment?.TRADELAB_STORAGE).toBe(
      `postgres://${db.POSTGRES_USER ?? ''}:${db.POSTGRES_PASSWORD ?? ''}@postgres:5432/${db.POSTGRES_DB ?? ''}`,
    );
    expect(tradelab?.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(postgres?.healthcheck?.test.join(' ')).toContain('pg_isready');
  });

  it('has GPU overrides for NVIDIA and AMD', () => {
    const nvidia = composeFile('compose.gpu-nvidia.yaml').services.tradelab;
    expect(nvidia?.deploy?.resources.reservations.devices[0]?.driver).toBe('nvidia');
    expect(nvidia?.environment?.NVIDIA_DRIVER_CAPABILITIES).toContain('graphics');
    const amd = composeFile('compose.gpu-amd.yaml').services.tradelab;
    expect(amd?.devices).toEqual(['/dev/kfd', '/dev/dri']);
  });
});
