#!/usr/bin/env node
// Builds tradelab's native GEMM (native/gemm) with node-gyp.
//
//   node scripts/build-native.mjs            # npm's `install` script: never fails the install
//   node scripts/build-native.mjs --strict   # `npm run build:native`: exits 1 when the build fails
//
// It needs what `npm ci` already needs for better-sqlite3, a C compiler and Python for node-gyp,
// and no system library: the kernels are tradelab's own, and a system BLAS is opened at run time
// when there is one. Without a C toolchain the addon is not built and tradelab runs its matrix
// products on the wasm backend's XNNPACK. Either way the outcome is written to
// native/gemm/build-status.json, which `tradelab backends` reads to say why; the compiler's output
// goes to native/gemm/build.log. Set TRADELAB_SKIP_NATIVE=1 to skip the build.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const gemmDir = join(root, 'native', 'gemm');
const statusFile = join(gemmDir, 'build-status.json');
const logFile = join(gemmDir, 'build.log');
const addon = join(gemmDir, 'build', 'Release', 'tradelab_gemm.node');
const strict = process.argv.includes('--strict');
const retry = 'retry with `npm run build:native`';

/** Records the outcome, prints one line, and exits (non-zero only with --strict). */
function finish(ok, reason) {
  mkdirSync(gemmDir, { recursive: true });
  const status = {
    ok,
    reason,
    addon: ok ? relative(root, addon) : null,
    log: existsSync(logFile) ? relative(root, logFile) : null,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    at: new Date().toISOString(),
  };
  writeFileSync(statusFile, `${JSON.stringify(status, null, 2)}\n`);
  if (ok) console.log(`tradelab: native GEMM built (${status.addon})`);
  else
    console.log(
      `tradelab: native GEMM not built: ${reason}; matrix products will use XNNPACK (wasm)` +
        `${status.log === null ? '' : `; log: ${status.log}`}; ${retry}`,
    );
  process.exit(ok || !strict ? 0 : 1);
}

/** node-gyp's entry script: the one npm runs lifecycle scripts with, else npm's bundled copy. */
function findNodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    process.env.npm_execpath &&
      join(
        dirname(process.env.npm_execpath),
        '..',
        'node_modules',
        'node-gyp',
        'bin',
        'node-gyp.js',
      ),
    join(
      dirname(process.execPath),
      '..',
      'lib',
      'node_modules',
      'npm',
      'node_modules',
      'node-gyp',
      'bin',
      'node-gyp.js',
    ),
  ];
  return candidates.find((c) => typeof c === 'string' && c.length > 0 && existsSync(c));
}

/**
 * The Node headers installed beside this node binary, when they match its version: node-gyp
 * would otherwise download them, and installs here may have no network beyond the npm registry.
 */
function localNodeDir() {
  if (process.env.npm_config_nodedir) return undefined; // node-gyp reads it itself
  const prefix = resolve(dirname(process.execPath), '..');
  try {
    const header = readFileSync(join(prefix, 'include', 'node', 'node_version.h'), 'utf8');
    const part = (name) => header.match(new RegExp(`#define ${name} (\\d+)`))?.[1];
    const version = `v${part('NODE_MAJOR_VERSION')}.${part('NODE_MINOR_VERSION')}.${part('NODE_PATCH_VERSION')}`;
    return version === process.version ? prefix : undefined;
  } catch {
    return undefined; // no local headers: node-gyp fetches them (needs the network)
  }
}

/** A one-line reason and fix from the build log. */
function diagnose(log) {
  if (/Could not find any Python|gyp ERR! find Python/i.test(log))
    return 'node-gyp found no Python 3 (install python3)';
  if (/not found: make|make: not found|No Xcode or CLT/i.test(log))
    return 'no C build tools (Debian/Ubuntu: sudo apt-get install build-essential; macOS: xcode-select --install)';
  if (/(gcc|cc|clang): (command )?not found|not found: (cc|gcc|clang)/i.test(log))
    return 'no C compiler (Debian/Ubuntu: sudo apt-get install build-essential)';
  if (/node_api\.h: No such file/.test(log))
    return 'the Node.js headers are missing (install your distribution’s nodejs headers, or set npm_config_nodedir)';
  if (/ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|unable to download/i.test(log))
    return 'node-gyp tried to download the Node.js headers and could not (set npm_config_nodedir to a directory with include/node)';
  const error = log
    .split('\n')
    .map((line) => line.trim())
    .find(
      (line) =>
        /error/i.test(line) && !/^gyp (ERR|info)!? (stack|cwd|node|System|command)/.test(line),
    );
  return `node-gyp failed (${error ?? 'no error line in the log'})`;
}

if (process.env.TRADELAB_SKIP_NATIVE === '1') finish(false, 'skipped (TRADELAB_SKIP_NATIVE=1)');
if (process.platform === 'win32') finish(false, 'not supported on Windows yet');
const nodeGyp = findNodeGyp();
if (nodeGyp === undefined)
  finish(false, 'node-gyp was not found (it comes with npm; run this script through npm)');

const nodeDir = localNodeDir();
const args = [nodeGyp, 'rebuild', '--release', `--directory=${gemmDir}`];
if (nodeDir !== undefined) args.push(`--nodedir=${nodeDir}`);
const build = spawnSync(process.execPath, args, {
  cwd: gemmDir,
  encoding: 'utf8',
  env: process.env,
});
const log = `$ ${process.execPath} ${args.join(' ')}\n${build.stdout ?? ''}${build.stderr ?? ''}${build.error === undefined ? '' : `\n${String(build.error)}`}`;
writeFileSync(logFile, log);
if (build.status !== 0 || !existsSync(addon)) finish(false, diagnose(log));

// Built is not enough: the addon must also load (a toolchain for another ABI builds one that does not).
const load = spawnSync(process.execPath, ['-e', `require(${JSON.stringify(addon)})`], {
  encoding: 'utf8',
});
if (load.status !== 0) {
  const line = (load.stderr ?? '').split('\n').find((l) => /Error/.test(l)) ?? 'unknown error';
  finish(false, `built, but the addon does not load: ${line.trim()}`);
}
finish(true, 'built');
