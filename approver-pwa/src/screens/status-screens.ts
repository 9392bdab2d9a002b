import { focusHeading, h, setTitle } from '../ui/dom.ts';
import { errorMessage } from './messages.ts';

/** Shown when this browser has no device session: the only way in is an enrollment link. */
export function showNotEnrolled(root: HTMLElement): void {
  setTitle('Not enrolled');
  root.replaceChildren(
    h(
      'section',
      { class: 'screen', testid: 'not-enrolled' },
      h('h1', {}, 'This device is not enrolled'),
      h('p', {}, 'To approve requests on this device, open the enrollment link you were given, here, in this browser.'),
      h('p', { class: 'muted' }, 'Links work once and expire after a short while. If yours has, ask whoever runs Countersign for you for a new one.'),
    ),
  );
  focusHeading(root);
}

/** Shown for an unknown fragment. */
export function showNotFound(root: HTMLElement): void {
  setTitle('Not found');
  root.replaceChildren(
    h(
      'section',
      { class: 'screen', testid: 'not-found' },
      h('h1', {}, 'Nothing here'),
      h('p', {}, 'This link does not lead to anything in Countersign.'),
      h('p', {}, h('a', { attrs: { href: '#/' } }, 'Go to your requests')),
    ),
  );
  focusHeading(root);
}

/** Shown when the session could not be loaded (server unreachable); `retry` tries again. */
export function showLoadError(root: HTMLElement, error: unknown, retry: () => void): void {
  setTitle('Offline');
  root.replaceChildren(
    h(
      'section',
      { class: 'screen', testid: 'load-error' },
      h('h1', {}, "Can't load Countersign"),
      h('p', { attrs: { role: 'alert' } }, errorMessage(error)),
      h('button', { class: 'btn btn-secondary', testid: 'retry', attrs: { type: 'button' }, on: { click: retry } }, 'Try again'),
    ),
  );
  focusHeading(root);
}
