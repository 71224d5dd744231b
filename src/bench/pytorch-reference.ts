import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/*
 * A PyTorch reference measured in the same run, on the same machine: a bench runs one of the
 * scripts in bench/ (pytorch-ppo-update.py, pytorch-tcn.py) and compares with what it printed,
 * never with a figure from another day. The script's own process runs OpenBLAS at full speed
 * (bench/reference_env.py clears OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE for it; so does this
 * spawn) and reports which BLAS kernels it ran. Without python3 or PyTorch there is no reference,
 * and the bench says so instead of inventing a ratio.
 */

/** The variables that would make OpenBLAS run another core's kernels in the reference. */
const HANDICAPS = ['OPENBLAS_CORETYPE', 'OPENBLAS_L2_SIZE'];

/** What a reference script printed with --json (the fields a bench reads). */
export interface PytorchReference {
  name: string;
  /** Items per second, in the bench's own unit. */
  rate: number;
  /** The BLAS that ran its products, as the script read it. */
  blas: {
    library: string | null;
    core: string | null;
    config: string | null;
    cleared: string | null;
  };
  /** Everything it printed, for --json records. */
  record: Record<string, unknown>;
}

/** Why no reference ran. */
export interface NoReference {
  unavailable: string;
}

/** The bench/ script `name`, beside the package's dist/. */
export function referenceScript(name: string): string {
  return fileURLToPath(new URL(`../../bench/${name}`, import.meta.url));
}

/**
 * Runs `python3 bench/<script> <args> --json` and reads its last JSON line; `rateField` names the
 * figure to compare (`rate`, `timestepsPerSecond`…). Resolves to a {@link NoReference} when python3
 * or PyTorch is missing, or the script fails, with the reason.
 */
export async function runPytorchReference(
  script: string,
  args: readonly string[],
  rateField: string,
  timeoutMs = 600_000,
): Promise<PytorchReference | NoReference> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !HANDICAPS.includes(name)),
  );
  // TRADELAB_PYTHON alone when set; else python3 on the PATH, then the system's (where a
  // distribution's PyTorch, Debian's python3-torch, is when a pyenv python3 comes first).
  const chosen = process.env.TRADELAB_PYTHON;
  const pythons =
    chosen !== undefined && chosen !== '' ? [chosen] : ['python3', '/usr/bin/python3'];
  let output: { stdout: string; error?: string; missing?: boolean } = {
    stdout: '',
    error: 'no python3 found',
  };
  for (const python of pythons) {
    output = await runScript(python, script, args, env, timeoutMs);
    if (output.error === undefined || !output.missing) break;
  }
  if (output.error !== undefined) return { unavailable: output.error };
  const line = output.stdout.trim().split('\n').pop() ?? '';
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { unavailable: `${script} printed no JSON line: ${line.slice(0, 200)}` };
  }
  const rate = record[rateField];
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0)
    return { unavailable: `${script} printed no ${rateField}` };
  const blas = (record.blas ?? {}) as PytorchReference['blas'];
  return {
    name: typeof record.name === 'string' ? record.name : script,
    rate,
    blas: {
      library: blas.library ?? null,
      core: blas.core ?? null,
      config: blas.config ?? null,
      cleared: blas.cleared ?? null,
    },
    record,
  };
}

/** One interpreter's try: its output, or why it failed (`missing`: no such python, or no torch). */
function runScript(
  python: string,
  script: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ stdout: string; error?: string; missing?: boolean }> {
  return new Promise((resolve) => {
    execFile(
      python,
      [referenceScript(script), ...args, '--json'],
      { env, timeout: timeoutMs, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        if (error === null) resolve({ stdout });
        else if (/No module named 'torch'/.test(stderr))
          resolve({
            stdout,
            missing: true,
            error: `PyTorch is not installed for ${python} (Debian: python3-torch; pip: torch)`,
          });
        else if ((error as NodeJS.ErrnoException).code === 'ENOENT')
          resolve({ stdout, missing: true, error: `${python} was not found` });
        else
          resolve({
            stdout,
            error: `${script} failed: ${(stderr.trim().split('\n').pop() ?? error.message).slice(0, 300)}`,
          });
      },
    );
  });
}

/** The kernels a reference ran, in words (for a target's source line). */
export function describeReferenceBlas(blas: PytorchReference['blas']): string {
  const kernels =
    blas.core !== null ? `OpenBLAS ${blas.core} kernels` : `BLAS ${blas.library ?? 'unknown'}`;
  return blas.cleared === null ? kernels : `${kernels}; ${blas.cleared} cleared for its process`;
}
