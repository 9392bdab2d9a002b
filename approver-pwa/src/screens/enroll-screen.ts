import { browserSupportsWebAuthn, startRegistration } from '@simplewebauthn/browser';
import { getEnrollmentOptions, isApiError, verifyEnrollment, type DeviceSession } from '../api/index.ts';
import { loadSession } from '../session.ts';
import { defaultDeviceName } from '../ui/default-device-name.ts';
import { focusHeading, h, setTitle } from '../ui/dom.ts';
import { errorBanner, errorMessage } from './messages.ts';
import type { Dispose } from './screen.ts';

/** The longest device name the server takes. */
const DEVICE_NAME_MAX = 64;

/**
 * The enrollment screen, opened from `#/enroll/<code>`: explains what is about to happen, takes a
 * device name and creates the passkey (WebAuthn registration), then hands the new session over.
 */
export function mountEnrollScreen(root: HTMLElement, code: string, onEnrolled: (session: DeviceSession) => void): Dispose {
  let disposed = false;
  setTitle('Set up this phone');

  const nameInput = h('input', {
    testid: 'device-name',
    attrs: {
      id: 'device-name',
      name: 'device_name',
      type: 'text',
      maxlength: DEVICE_NAME_MAX,
      autocomplete: 'off',
      autocapitalize: 'sentences',
      enterkeyhint: 'go',
      'aria-describedby': 'device-name-hint',
      value: defaultDeviceName(navigator.userAgent),
    },
  });
  const button = h('button', { class: 'btn btn-primary btn-block', testid: 'enroll-button', attrs: { type: 'submit' } }, 'Create passkey');
  const status = h('p', { class: 'status', testid: 'enroll-status', attrs: { role: 'status' } });
  const errorSlot = h('div', { class: 'slot' });
  const alreadyEnrolled = h('div', { class: 'slot' });

  const form = h(
    'form',
    { class: 'stack', attrs: { novalidate: true }, on: { submit: (event) => void submit(event) } },
    h('div', { class: 'field' }, h('label', { attrs: { for: 'device-name' } }, 'Name of this device'), nameInput, h('p', { class: 'hint', attrs: { id: 'device-name-hint' } }, 'So you can tell your devices apart later.')),
    button,
    status,
  );

  root.replaceChildren(
    h(
      'section',
      { class: 'screen', testid: 'enroll-screen' },
      h('h1', {}, 'Set up this phone to approve'),
      alreadyEnrolled,
      h('p', { class: 'lead' }, 'Agents ask you here before they do something that matters, such as paying money. You see the exact amount and payee, and nothing happens until you say yes.'),
      h(
        'ol',
        { class: 'steps' },
        h('li', {}, h('strong', {}, 'Create a passkey. '), 'It stays on this phone and is unlocked with your fingerprint, face or screen lock. There is no password.'),
        h('li', {}, h('strong', {}, 'Approve or deny each request with it. '), 'Your passkey signs that one request, exactly as shown, and nothing else.'),
      ),
      errorSlot,
      form,
    ),
  );
  focusHeading(root);

  if (!browserSupportsWebAuthn()) {
    button.disabled = true;
    errorSlot.replaceChildren(errorBanner("This browser can't use passkeys. Open the link in an up-to-date Chrome, Safari, Edge or Firefox."));
  }

  // Opening an enrollment link on an enrolled phone is allowed (a new passkey, perhaps for
  // someone else), but say so.
  loadSession().then(
    (session) => {
      if (disposed || !session) return;
      alreadyEnrolled.replaceChildren(
        h('p', { class: 'banner', testid: 'already-enrolled' }, `This phone is already set up for ${session.user.display_name || session.user.sub}. Continuing adds a new passkey from this link. `, h('a', { attrs: { href: '#/' } }, 'Go to your requests')),
      );
    },
    () => undefined,
  );

  let busy = false;
  async function submit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (busy) return;
    const deviceName = nameInput.value.normalize('NFC').trim() || defaultDeviceName(navigator.userAgent);
    busy = true;
    button.disabled = true;
    errorSlot.replaceChildren();
    try {
      status.textContent = 'Asking the server…';
      const optionsJSON = await getEnrollmentOptions(code);
      status.textContent = 'Follow your phone to create the passkey…';
      const response = await startRegistration({ optionsJSON });
      status.textContent = 'Saving…';
      const session = await verifyEnrollment(code, response, deviceName.slice(0, DEVICE_NAME_MAX));
      if (!disposed) onEnrolled(session);
    } catch (error) {
      if (disposed) return;
      status.textContent = '';
      const message = isApiError(error, 'invalid_enrollment_code') ? `${error.message} Ask for a new enrollment link.` : errorMessage(error);
      errorSlot.replaceChildren(errorBanner(message));
      button.disabled = false;
    } finally {
      busy = false;
    }
  }

  return () => {
    disposed = true;
  };
}
