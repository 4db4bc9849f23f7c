/**
 * Headless Debian chromium for browser tests, driven by playwright-core (which never downloads a browser):
 * scripts/ensure-chromium.sh installs the distribution's package where missing and names the executable.
 * axe-core is evaluated into the page through the DevTools protocol, so the page's own strict CSP stays on.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

const ROOT = join(__dirname, '..', '..');

export async function launchChromium(): Promise<Browser> {
  const executablePath = execFileSync(join(ROOT, 'scripts', 'ensure-chromium.sh'), {
    encoding: 'utf8',
  }).trim();
  return chromium.launch({
    executablePath,
    // Root in a container has no user namespaces for chromium's sandbox.
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      globalThis as unknown as {
        axe: {
          run(): Promise<{
            violations: { id: string; impact: string; help: string; nodes: { target: unknown[] }[] }[];
          }>;
        };
      }
    ).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => JSON.stringify(n.target)),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
