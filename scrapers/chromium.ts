import { accessSync, constants } from 'node:fs';

/** Why the browser engine cannot start Chromium at `path`, or null when it can. */
export function chromiumProblem(path: string): string | null {
  try {
    accessSync(path, constants.X_OK);
    return null;
  } catch {
    return `Chromium is not installed at CHROMIUM_PATH (${path}): browser scrapes fail until it is (Debian: apt-get install chromium)`;
  }
}
