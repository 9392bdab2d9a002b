import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * No axe-core (WCAG 2.x A/AA and best practices) violation on what is on screen. Measured with
 * reduced motion, so a colour transition (a button's hover) is never caught half-way; the page's
 * motion setting is put back afterwards.
 */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  const reduced = await page.evaluate(() => matchMedia('(prefers-reduced-motion: reduce)').matches);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  const { violations } = await new AxeBuilder({ page }).analyze();
  await page.emulateMedia({ reducedMotion: reduced ? 'reduce' : 'no-preference' });
  expect(
    violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`),
    `${name}: axe-core violations`,
  ).toEqual([]);
}

/** {@link expectAccessible} in the light scheme and then the dark one (its colours are its own), ending light. */
export async function expectAccessibleInBothSchemes(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await expectAccessible(page, name);
  await page.emulateMedia({ colorScheme: 'dark' });
  await expectAccessible(page, `${name} (dark)`);
  await page.emulateMedia({ colorScheme: 'light' });
}
