import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The checkout's root, found the same way from src/ (ts) and dist/src/ (compiled js). */
function findProjectRoot(start: string): string {
  let dir = start;
  while (dir !== dirname(dir)) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'scripts', 'ensure-temporal.sh')))
      return dir;
    dir = dirname(dir);
  }
  throw new Error(`cannot find the payrun checkout above ${start}`);
}

export const PROJECT_ROOT = findProjectRoot(__dirname);
