// The process entry: runs the command line and sets the exit code.
import { runCli } from './main.js';

process.exitCode = await runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
