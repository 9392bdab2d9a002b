import { AxeBuilder } from '@axe-core/playwright';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { createHarness, freePort, type EnrolledUser, type Harness } from '../support/harness.ts';

/**
 * What the browser files of test/console/ share. The operator console (`/console`) in headless
 * Chromium against the real server: sign in with the admin token, send a test request to an
 * enrolled user, and watch it move through its states while the person (a software passkey
 * through the device API) decides on it.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where the console's screenshots go. */
export const ARTIFACTS = `${ROOT}test/artifacts`;
/** How long one step may wait for the page or the server. */
export const STEP_MS = 10_000;

/** What axe-core (WCAG 2.x A/AA and best practices) finds on the page, one line per rule and its elements. */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/** One file's server, person, browser and console page, and what the tests read of the page. */
export interface ConsoleScene {
  harness: Harness;
  origin: string;
  alice: EnrolledUser;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  pageErrors: Error[];
  /** Every `Authorization` header the page sent to the admin API. */
  adminAuthorizations: Set<string>;
  /** The CSP violations (an inline script or style) the page recorded. */
  cspViolations(): Promise<string[]>;
  /** The watched request's state, as the console shows it. */
  state(): Promise<string | null>;
  /** The types of the watched request's timeline entries. */
  timeline(): Promise<(string | null)[]>;
}

/**
 * Before the calling file's tests, starts a server with `alice` enrolled and one Chromium (one
 * launch per file) with a desktop page; closes both after.
 */
export function useConsoleScene(): ConsoleScene {
  const scene = {
    pageErrors: [] as Error[],
    adminAuthorizations: new Set<string>(),
    cspViolations: () => scene.page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations),
    state: () => scene.page.getByTestId('watch-state').getAttribute('data-state'),
    timeline: () => scene.page.locator('[data-testid="timeline"] li').evaluateAll((items) => items.map((item) => item.getAttribute('data-type'))),
  } as ConsoleScene;

  beforeAll(async () => {
    const port = await freePort();
    scene.origin = `http://localhost:${port}`;
    scene.harness = await createHarness({ publicUrl: scene.origin });
    await scene.harness.listen(port);
    scene.alice = await scene.harness.enrollUser('alice');
    scene.browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-quic'] });
    scene.context = await scene.browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: 'light', locale: 'en-GB' });
    scene.context.setDefaultTimeout(STEP_MS);
    // Any CSP violation (an inline script or style) is recorded where the test can read it.
    await scene.context.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
    });
    scene.page = await scene.context.newPage();
    scene.page.on('pageerror', (error) => scene.pageErrors.push(error));
    scene.page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/api/admin/')) scene.adminAuthorizations.add(request.headers().authorization ?? '(none)');
    });
    await mkdir(ARTIFACTS, { recursive: true });
  });

  afterAll(async () => {
    await scene.browser?.close();
    await scene.harness?.close();
  });
  return scene;
}
