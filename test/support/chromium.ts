import { accessSync, constants } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/*
 * A real browser for tests that check a page as people see it: Debian's `chromium` package,
 * driven by playwright-core (which downloads no browser of its own). .ci/run installs the package
 * with scripts/ensure-debian-packages.sh; npm test never does. Without it the browser tests are
 * skipped, except in CI (CI=true), where they run and fail saying how to install it.
 */

/** The browser: $TRADELAB_TEST_CHROMIUM when set (another system's Chromium), else Debian's. */
export const CHROMIUM_PATH = process.env.TRADELAB_TEST_CHROMIUM ?? '/usr/bin/chromium';

/** Why no browser can be started here, or '' when one can. */
export function chromiumMissing(): string {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return '';
  } catch {
    return `no Chromium at ${CHROMIUM_PATH}: install it with 'scripts/ensure-debian-packages.sh chromium' (as root) or point TRADELAB_TEST_CHROMIUM at one`;
  }
}

/**
 * Whether `file`'s browser tests skip: Chromium is missing and this is not CI. Says why on stderr,
 * as the other suites that need something installed do.
 */
export function skipWithoutChromium(file: string): boolean {
  const missing = chromiumMissing();
  if (missing === '' || process.env.CI === 'true') return false;
  console.warn(`${file}: skipping the browser tests (${missing}); CI=true makes this a failure`);
  return true;
}

/** A headless Chromium; throws, saying how to install it, when there is none. */
export async function launchChromium(): Promise<Browser> {
  const missing = chromiumMissing();
  if (missing !== '') throw new Error(`cannot start a browser: ${missing}`);
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      // Chromium's sandbox refuses to start as root, which CI and containers run as.
      ...(process.getuid?.() === 0 ? ['--no-sandbox'] : []),
      // Containers give /dev/shm 64 MB, which a full-page screenshot can exhaust.
      '--disable-dev-shm-usage',
    ],
  });
}
