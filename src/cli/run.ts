// The process entry: runs the command line and sets the exit code.
import { runCli } from './main.js';

// `tradelab data show X | head` closes our stdout early: stop quietly, as Unix tools do.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

// A job of `tradelab serve` has an IPC channel to the service. When it closes (the service died),
// stop as after Ctrl-C rather than run on with no one to record the result. The channel must not
// keep the process alive by itself.
if (process.channel !== undefined) {
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

process.exitCode = await runCli(process.argv.slice(2), {
  cwd: process.cwd(),
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
});
