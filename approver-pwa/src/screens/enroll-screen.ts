import { browserSupportsWebAuthn, startRegistration, type PublicKeyCredentialCreationOptionsJSON } from '@simplewebauthn/browser';
import { getEnrollmentOptions, isApiError, verifyEnrollment, type DeviceSession } from '../api/index.ts';
import { loadSession, mayHaveSession } from '../session.ts';
import { defaultDeviceName } from '../ui/default-device-name.ts';
import { focusHeading, h, setTitle } from '../ui/dom.ts';
import { errorBanner, errorMessage, isPasskeyCancelled } from './messages.ts';
import type { Dispose } from './screen.ts';

/** The longest device name the server takes. */
const DEVICE_NAME_MAX = 64;

/**
 * The enrollment screen, opened from `#/enroll/<code>`: explains what is about to happen, takes a
 * device name and creates the passkey (WebAuthn registration), then hands the new session over.
 *
 * The link is checked as soon as the screen opens, by asking for the registration options (that
 * does not use the code up): a used or expired link says so at once, with no button to press. The
 * options are kept for the button, so the passkey prompt opens straight from the tap (Safari wants
 * it inside the user's gesture). The server keeps one challenge per code, that of the latest
 * options call, so the screen always registers with the options of its latest call.
 */
export function mountEnrollScreen(root: HTMLElement, code: string, onEnrolled: (session: DeviceSession) => void): Dispose {
  let disposed = false;
  let session: DeviceSession | null = null;
  /** The options of the latest call, once it answered; `null` while none is usable. */
  let options: PublicKeyCredentialCreationOptionsJSON | null = null;
  /** Counts options calls, so only the answer of the latest one is kept. */
  let optionsCall = 0;
  let invalid: string | null = null;
  let busy = false;
  const webAuthn = browserSupportsWebAuthn();
  setTitle('Set up this device');

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
  const button = h('button', { class: 'btn btn-primary btn-block', testid: 'enroll-button', attrs: { type: 'submit', disabled: true } }, 'Create passkey');
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
  const setup = h(
    'div',
    { class: 'stack' },
    h('p', { class: 'lead' }, 'Agents ask you here before they do something that matters, such as paying money. You see the exact amount and payee, and nothing happens until you say yes.'),
    h(
      'ol',
      { class: 'steps' },
      h('li', {}, h('strong', {}, 'Create a passkey. '), 'It stays on this device and is unlocked with your fingerprint, face or screen lock. There is no password.'),
      h('li', {}, h('strong', {}, 'Approve or deny each request with it. '), 'Your passkey signs that one request, exactly as shown, and nothing else.'),
    ),
    errorSlot,
    form,
  );
  const screen = h('section', { class: 'screen', testid: 'enroll-screen', attrs: { 'data-link': 'checking' } }, h('h1', {}, 'Set up this device to approve'), alreadyEnrolled, setup);
  root.replaceChildren(screen);
  focusHeading(root);

  /** The link can't be used: the server's sentence, and nothing to press. */
  function showInvalid(message: string): void {
    invalid = message;
    options = null;
    screen.dataset.link = 'invalid';
    setTitle('Enrollment link not valid');
    setup.replaceChildren(errorBanner(message));
    showSession();
  }

  function showSession(): void {
    if (!session) return;
    const who = session.user.display_name || session.user.sub;
    const goToRequests = h('a', { attrs: { href: '#/' } }, 'Go to your requests');
    alreadyEnrolled.replaceChildren(
      invalid ? h('p', { class: 'banner', testid: 'already-enrolled' }, `This device is already set up for ${who}. `, goToRequests) : h('p', { class: 'banner', testid: 'already-enrolled' }, `This device is already set up for ${who}. Continuing adds a new passkey from this link. `, goToRequests),
    );
  }

  /**
   * Asks for registration options, which also tells whether the link is still good.
   * @returns false when the link can't be used (shown), or the server could not say (shown).
   */
  async function fetchOptions(): Promise<boolean> {
    const call = ++optionsCall;
    options = null;
    try {
      const fetched = await getEnrollmentOptions(code);
      if (disposed || call !== optionsCall) return false;
      options = fetched;
      screen.dataset.link = 'valid';
      return true;
    } catch (error) {
      if (disposed || call !== optionsCall) return false;
      if (isApiError(error, 'invalid_enrollment_code')) showInvalid(error.message);
      else errorSlot.replaceChildren(errorBanner(errorMessage(error)), retryButton());
      return false;
    }
  }

  function retryButton(): HTMLElement {
    return h('button', { class: 'btn btn-secondary', testid: 'enroll-retry', attrs: { type: 'button' }, on: { click: () => void check() } }, 'Try again');
  }

  /** Checks the link (on opening, and when the person asks again after a failed check). */
  async function check(): Promise<void> {
    if (busy || invalid) return;
    busy = true;
    button.disabled = true;
    errorSlot.replaceChildren();
    status.textContent = 'Checking the enrollment link…';
    const ok = await fetchOptions();
    if (disposed) return;
    busy = false;
    status.textContent = '';
    if (ok && webAuthn) button.disabled = false;
    if (ok && !webAuthn) errorSlot.replaceChildren(errorBanner("This browser can't use passkeys. Open the link in an up-to-date Chrome, Safari, Edge or Firefox."));
  }

  async function submit(event: SubmitEvent): Promise<void> {
    event.preventDefault();
    if (busy || invalid || !options || !webAuthn) return;
    const deviceName = nameInput.value.normalize('NFC').trim() || defaultDeviceName(navigator.userAgent);
    busy = true;
    button.disabled = true;
    errorSlot.replaceChildren();
    try {
      status.textContent = 'Follow the prompts to create the passkey…';
      const response = await startRegistration({ optionsJSON: options });
      status.textContent = 'Saving…';
      const session = await verifyEnrollment(code, response, deviceName.slice(0, DEVICE_NAME_MAX));
      if (!disposed) onEnrolled(session);
    } catch (error) {
      if (disposed) return;
      status.textContent = '';
      if (isApiError(error, 'invalid_enrollment_code')) return showInvalid(error.message);
      const message = errorMessage(error);
      // A dismissed prompt sent nothing, and the server still holds this challenge: keep the
      // options. Anything else may have used the code up (verification consumes it, pass or
      // fail): check the link again, which says so if it has, and otherwise renews the options.
      if (!isPasskeyCancelled(error) && !(await fetchOptions())) {
        if (!disposed && !invalid) errorSlot.replaceChildren(errorBanner(message), retryButton());
        return;
      }
      if (disposed) return;
      errorSlot.replaceChildren(errorBanner(message));
      button.disabled = false;
      button.focus();
    } finally {
      busy = false;
    }
  }

  // Opening an enrollment link on an enrolled device is allowed (a new passkey, perhaps for
  // someone else), but say so. A browser that never had a session is not asked (see mayHaveSession).
  (mayHaveSession() ? loadSession() : Promise.resolve(null)).then(
    (found) => {
      if (disposed || !found) return;
      session = found;
      showSession();
    },
    () => undefined,
  );
  void check();

  return () => {
    disposed = true;
  };
}
