import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { loadTemporalCliPath } from '../config';
import { PROJECT_ROOT } from '../paths';

const ENSURE_SCRIPT = join(PROJECT_ROOT, 'scripts', 'ensure-temporal.sh');

/**
 * Path of the pinned Temporal CLI, building it once if needed (see scripts/ensure-temporal.sh).
 * TEMPORAL_CLI_PATH overrides it (for example a CLI installed by other means).
 */
export function temporalBinary(): string {
  const override = loadTemporalCliPath();
  if (override) return override;
  return execFileSync('bash', [ENSURE_SCRIPT], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
}
