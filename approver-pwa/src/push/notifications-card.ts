import { h } from '../ui/dom.ts';
import { enablePush, getPushStatus, onPushStatus, type PushStatus } from './push-status.ts';

/**
 * The notifications panel of the inbox: a "Turn on notifications" button while permission has not
 * been asked, otherwise one quiet line. Failing push never blocks the app: the inbox is live.
 *
 * @returns the element and a function that stops following the status.
 */
export function notificationsCard(vapidPublicKey: string): { element: HTMLElement; dispose: () => void } {
  const element = h('section', { class: 'notice', attrs: { 'aria-label': 'Notifications' } });
  const render = (status: PushStatus) => {
    element.replaceChildren(...content(status, vapidPublicKey));
    element.dataset.pushStatus = status;
    element.classList.toggle('notice-action', status === 'needs_permission' || status === 'working');
  };
  render(getPushStatus());
  return { element, dispose: onPushStatus(render) };
}

const LIVE_NOTE = 'This inbox still updates live while it is open.';

function content(status: PushStatus, vapidPublicKey: string): Node[] {
  switch (status) {
    case 'needs_permission':
    case 'working':
      return [
        h('p', {}, 'Get a notification as soon as an agent asks for your approval.'),
        h(
          'button',
          {
            class: 'btn btn-secondary',
            testid: 'enable-notifications',
            attrs: { type: 'button', disabled: status === 'working' },
            on: { click: () => void enablePush(vapidPublicKey) },
          },
          status === 'working' ? 'Turning on…' : 'Turn on notifications',
        ),
      ];
    case 'on':
      return [h('p', { class: 'muted', testid: 'notifications-on' }, 'Notifications are on for this device.')];
    case 'denied':
      return [h('p', { class: 'muted', testid: 'notifications-off' }, `Notifications are blocked for this site. ${LIVE_NOTE} You can allow them in the browser's site settings.`)];
    case 'unsupported':
      return [h('p', { class: 'muted', testid: 'notifications-off' }, /iPhone|iPad/.test(navigator.userAgent) ? `Notifications are off: add Countersign to your Home Screen to get them. ${LIVE_NOTE}` : `This browser can't show notifications. ${LIVE_NOTE}`)];
    case 'failed':
      return [h('p', { class: 'muted', testid: 'notifications-off' }, `Notifications are off on this device. ${LIVE_NOTE}`)];
  }
}
