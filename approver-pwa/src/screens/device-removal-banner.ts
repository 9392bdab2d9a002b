import { deviceRemovalText, deviceRemovals, dismissDeviceRemoval, watchDeviceRemovals } from '../live/device-removals.ts';
import { focusHeading, h } from '../ui/dom.ts';

/**
 * The inbox's notices of the person's other devices removed while the app was open (a lost phone
 * an operator revoked, say): one banner each, until dismissed. The slot is a polite live region
 * from the start, so a notice that comes while the inbox is on screen is read out.
 *
 * @param root - the screen's root, whose heading takes the focus when a notice is dismissed.
 * @returns the element and a function that stops following the removals.
 */
export function deviceRemovalBanner(root: HTMLElement): { element: HTMLElement; dispose: () => void } {
  const element = h('div', { class: 'slot', testid: 'device-removals', attrs: { role: 'status' } });
  const render = () => {
    element.replaceChildren(
      ...deviceRemovals().map((event) =>
        h(
          'div',
          { class: 'banner banner-warning banner-dismissible', testid: 'device-removed', attrs: { 'data-device-id': event.device_id } },
          h('p', {}, deviceRemovalText(event)),
          h(
            'button',
            {
              class: 'btn btn-secondary',
              testid: 'dismiss-device-removed',
              attrs: { type: 'button' },
              on: {
                click: () => {
                  dismissDeviceRemoval(event.device_id);
                  // The button is gone: the focus goes back to the top of the screen, not to the page's end.
                  focusHeading(root);
                },
              },
            },
            'Dismiss',
          ),
        ),
      ),
    );
  };
  render();
  return { element, dispose: watchDeviceRemovals(render) };
}
