import { describe, expect, it } from 'vitest';
import { useChromium, VIEWPORTS, type ViewportName } from '../support/pwa-browser.ts';
import { useJourneys } from './support.ts';

// The journeys start with enrollment: the customer and a finance reviewer, each from an operator's
// link, on a device of their own (the other test/pwa-flows/ files enroll them before their tests).

const chromium = useChromium();

describe.each(Object.keys(VIEWPORTS) as ViewportName[])('the approver’s journeys (%s)', (viewport) => {
  const ui = useJourneys(chromium, viewport, { enroll: false });

  it('enrolls the customer and a finance reviewer, each on a device of their own', async () => {
    await ui.enrollCustomer();
    expect(await ui.page.getByTestId('nav-inbox').getAttribute('aria-current')).toBe('page');
    await ui.enrollReviewer();
  });
});
