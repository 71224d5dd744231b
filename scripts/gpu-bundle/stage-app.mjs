#!/usr/bin/env node
// Copies the built project and its production dependencies into DEST, leaving out what no run loads,
// for scripts/gpu-bundle.sh.
//
//   node scripts/gpu-bundle/stage-app.mjs DEST
//
// Production dependencies are the packages of package-lock.json not marked `dev`, copied (hard-linked
// where they can be) from this checkout's node_modules (so better-sqlite3's and our own addons come
// as `npm ci` built them), not installed again. What is left out, and why each rule is safe:
// - source maps, type declarations, TypeScript sources and Markdown: Node never loads them;
// - of each @tensorflow package, everything but its `main` file and the wasm binaries beside it:
//   Node resolves these packages by `main` (they have no `exports`), and each `main` is one CommonJS
//   bundle that reaches the others by package name; the other builds (ESM, browser, minified) are
//   for bundlers and browsers;
// - of `webgpu`, the Dawn builds for other platforms and its build scripts;
// - of better-sqlite3, the SQLite sources and the build's object files;
// - of apache-arrow, its minified browser bundles; of parquet-wasm, the builds its `exports` give
//   only to bundlers and browsers.
// Linux only, like the bundle. Prints the size of what it copied, largest packages first.
import {
  copyFileSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dest = process.argv[2];
if (dest === undefined) {
  console.error('usage: node scripts/gpu-bundle/stage-app.mjs DEST');
  process.exit(2);
}

const NEVER_LOADED = /\.(map|d\.ts|d\.mts|d\.cts|ts|mts|cts|md|markdown|tsbuildinfo)$/;
const platformArch = `${process.platform}-${process.arch}`;

/** Package-specific filters: given a path relative to the package, whether to keep it. */
const PACKAGE_RULES = {
  webgpu: (path) => !path.startsWith('build/') && !isOtherDawnBuild(path),
  'better-sqlite3': (path) =>
    !/^(deps|src)(\/|$)/.test(path) &&
    (!path.startsWith('build/') ||
      path === 'build' ||
      path === join('build', 'Release') ||
      path === join('build', 'Release', 'better_sqlite3.node')),
  'apache-arrow': (path) => !/\.min\.js$/.test(path) && !path.startsWith('src/'),
  'parquet-wasm': (path) => !/^(bundler|esm)(\/|$)/.test(path),
};

function isOtherDawnBuild(path) {
  const parts = path.split('/');
  return parts[0] === 'dist' && parts.length >= 2 && parts[1] !== platformArch;
}

/** For an @tensorflow package: keep package.json, the LICENSE, `main`, and dist/*.wasm. */
function tensorflowRule(source) {
  const main = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')).main;
  if (typeof main !== 'string') throw new Error(`${source}/package.json has no main`);
  const keep = join(main);
  return (path) =>
    path === 'package.json' ||
    path.startsWith('LICENSE') ||
    path === 'dist' ||
    path === keep ||
    (dirname(path) === 'dist' && path.endsWith('.wasm'));
}

/**
 * Places the file `from` at `to`: a hard link where it can be one, else a copy. The stage is only
 * read (by tar) and then removed, never written in place, so a link is as good as a copy there,
 * and it costs no data copy: for the ~5,400 files of the app, about 0.4 CPU-s of system time
 * against 2 to 3 for copies. Another file system (EXDEV), a file we may not link (EPERM under
 * fs.protected_hardlinks) or too many links get a copy.
 */
function place(from, to) {
  try {
    linkSync(from, to);
  } catch (error) {
    if (!['EXDEV', 'EPERM', 'EMLINK', 'ENOTSUP', 'EOPNOTSUPP'].includes(error.code)) throw error;
    copyFileSync(from, to);
  }
}

/**
 * Places the tree at `source` at `target` (see {@link place}): the directories and files for which
 * `keep(path, isFile)` holds (`path` relative to `source`; a directory left out is left out whole),
 * and symbolic links as links. A walk of our own rather than fs.cpSync with a filter, which stats
 * every entry several times over and can only copy.
 */
function copyTree(source, target, keep, path = '') {
  mkdirSync(target, { recursive: true });
  for (const entry of readdirSync(source, { withFileTypes: true })) {
    const from = join(source, entry.name);
    const to = join(target, entry.name);
    const inside = path === '' ? entry.name : `${path}/${entry.name}`;
    if (!keep(inside, entry.isFile())) continue;
    if (entry.isDirectory()) copyTree(from, to, keep, inside);
    else if (entry.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else place(from, to);
  }
}

/** Copies one package from node_modules, without its nested node_modules (copied on their own). */
function copyPackage(lockPath) {
  const source = join(root, lockPath);
  const name = lockPath.slice(lockPath.lastIndexOf('node_modules/') + 'node_modules/'.length);
  const rule = name.startsWith('@tensorflow/') ? tensorflowRule(source) : PACKAGE_RULES[name];
  copyTree(source, join(dest, lockPath), (path, isFile) => {
    if (path === 'node_modules' || path.startsWith('node_modules/')) return false;
    if (isFile && NEVER_LOADED.test(path)) return false;
    return rule === undefined || rule(path);
  });
}

/** Bytes under a path. */
function sizeOf(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, entry) => sum + sizeOf(join(path, entry)), 0);
}

const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

// The project: what `files` in package.json publishes, built; the native GEMM addon, not its
// sources (the GPU machine has no compiler), nor its gemm-choice.json (measured on this machine).
mkdirSync(dest, { recursive: true });
for (const file of ['package.json', 'package-lock.json'])
  cpSync(join(root, file), join(dest, file));
for (const dir of ['bin', 'presets']) cpSync(join(root, dir), join(dest, dir), { recursive: true });
copyTree(
  join(root, 'dist'),
  join(dest, 'dist'),
  (path, isFile) => !(isFile && NEVER_LOADED.test(path)),
);
const addon = join('native', 'gemm', 'build', 'Release', 'tradelab_gemm.node');
if (existsSync(join(root, addon))) cpSync(join(root, addon), join(dest, addon));
else console.error(`stage-app: warning: ${addon} is not built; the bundle's CPU rows use XNNPACK`);
for (const pytorchBench of [
  join('bench', 'pytorch-ppo-update.py'),
  join('bench', 'pytorch-tcn.py'),
  join('bench', 'reference_env.py'), // the references' OpenBLAS at full speed, and its kernels
])
  if (existsSync(join(root, pytorchBench)))
    cpSync(join(root, pytorchBench), join(dest, pytorchBench));

const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
const missing = [];
for (const [lockPath, entry] of Object.entries(lock.packages)) {
  if (lockPath === '' || entry.dev === true) continue;
  // Optional packages for other platforms are in the lock but were never installed.
  if (!existsSync(join(root, lockPath))) {
    if (entry.optional !== true) missing.push(lockPath);
    continue;
  }
  copyPackage(lockPath);
}
if (missing.length > 0) {
  console.error(`stage-app: error: not installed: ${missing.join(', ')}\nfix: run npm ci`);
  process.exit(1);
}

const modules = join(dest, 'node_modules');
const packages = readdirSync(modules).flatMap((entry) =>
  entry.startsWith('@')
    ? readdirSync(join(modules, entry)).map((sub) => join(entry, sub))
    : [entry],
);
const sizes = packages
  .map((name) => ({ name, bytes: sizeOf(join(modules, name)) }))
  .sort((a, b) => b.bytes - a.bytes);
const total = sizeOf(dest);
console.log(
  `app: ${mib(total)} uncompressed (dist ${mib(sizeOf(join(dest, 'dist')))}, node_modules ${mib(sizeOf(modules))} in ${packages.length} packages; largest: ${sizes
    .slice(0, 6)
    .map((s) => `${s.name} ${mib(s.bytes)}`)
    .join(', ')})`,
);
