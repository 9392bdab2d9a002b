import type { DeviceEnrollmentLink } from '@countersign/shared';
import { startAuthentication } from '@simplewebauthn/browser';
import { createEnrollmentLink, getEnrollmentLinkOptions, isApiError } from '../api/index.ts';
import { startCountdown } from '../ui/countdown.ts';
import { h } from '../ui/dom.ts';
import { formatDuration } from '../ui/format-duration.ts';
import { qrCodeSvg } from '../ui/qr-code.ts';
import { errorBanner, errorMessage, isPasskeyCancelled } from './messages.ts';
import type { Dispose } from './screen.ts';

/**
 * "Add another device": makes a one-time link for this same person, confirmed with this device's
 * passkey (a session alone never adds a passkey), and shows it as a QR code for the other
 * device's camera and as text with a Copy button. The link works once, for 15 minutes; the panel
 * counts down and says when it has run out.
 *
 * @param loginRequired - the server said this device is no longer enrolled.
 * @returns the panel and a function that stops its countdown.
 */
export function addDevicePanel(loginRequired: () => void): { element: HTMLElement; dispose: Dispose } {
  let stopCountdown: Dispose = () => undefined;
  let busy = false;
  const slot = h('div', { class: 'stack' });
  const create = h('button', { class: 'btn btn-secondary', testid: 'add-device', attrs: { type: 'button' }, on: { click: () => void make() } }, 'Create a link');
  const element = h(
    'section',
    { class: 'card add-device', testid: 'add-device-panel', attrs: { 'aria-labelledby': 'add-device-title' } },
    h('h2', { attrs: { id: 'add-device-title' } }, 'Add another device'),
    h('p', {}, 'Make a one-time link, then open it on the other device, or scan its QR code with that device’s camera. It creates a passkey there for you. Making the link asks for your passkey here.'),
    create,
    slot,
  );

  async function make(): Promise<void> {
    if (busy) return;
    busy = true;
    create.disabled = true;
    stopCountdown();
    const status = h('p', { class: 'status', attrs: { role: 'status' } }, 'Confirm with your passkey…');
    slot.replaceChildren(status);
    try {
      const options = await getEnrollmentLinkOptions();
      const response = await startAuthentication({ optionsJSON: options });
      status.textContent = 'Creating a link…';
      show(await createEnrollmentLink(response));
      create.textContent = 'Create a new link';
    } catch (error) {
      if (isApiError(error, 'login_required')) return loginRequired();
      slot.replaceChildren(errorBanner(isPasskeyCancelled(error) ? 'No link was made: the passkey prompt was cancelled.' : errorMessage(error)));
    } finally {
      busy = false;
      create.disabled = false;
    }
  }

  function show(link: DeviceEnrollmentLink): void {
    const input = h('input', { testid: 'enrollment-link', attrs: { id: 'enrollment-link', type: 'text', readonly: true, value: link.enrollment_url, 'aria-describedby': 'enrollment-link-hint', autocomplete: 'off', spellcheck: 'false' } });
    const copied = h('p', { class: 'status', testid: 'copy-status', attrs: { role: 'status' } });
    const expires = h('p', { class: 'hint', testid: 'link-expires' });
    const copy = h('button', { class: 'btn btn-secondary', testid: 'copy-link', attrs: { type: 'button' }, on: { click: () => void copyLink() } }, 'Copy link');
    const content = h(
      'div',
      { class: 'stack enrollment-link', testid: 'enrollment' },
      h('figure', { class: 'qr' }, qrCodeSvg(link.qr, 'QR code of the link'), h('figcaption', { class: 'hint' }, 'Scan with the other device’s camera')),
      h('div', { class: 'field' }, h('label', { attrs: { for: 'enrollment-link' } }, 'Link'), h('div', { class: 'copy-row' }, input, copy), copied),
      h('p', { class: 'hint', attrs: { id: 'enrollment-link-hint' } }, 'Anyone with this link can add a device to your account until it is used or expires: open it only on your own device, and don’t send it to anyone.'),
      expires,
    );
    slot.replaceChildren(content);
    input.addEventListener('focus', () => input.select());
    // The code and the link are below the button: show them, and put the focus on the link.
    content.scrollIntoView({ block: 'start' });
    input.focus({ preventScroll: true });
    stopCountdown = startCountdown(link.expires_in, (seconds) => {
      expires.textContent = seconds > 0 ? `Works once, for the next ${formatDuration(seconds)}.` : 'This link has expired. Create a new one.';
      content.dataset.expired = String(seconds === 0);
    });

    async function copyLink(): Promise<void> {
      try {
        await navigator.clipboard.writeText(link.enrollment_url);
        copied.textContent = 'Copied.';
      } catch {
        // No clipboard access (an insecure origin, a denied permission): leave it selected to copy by hand.
        input.focus();
        input.select();
        copied.textContent = 'Selected: copy it with your device’s copy command.';
      }
    }
  }

  return { element, dispose: () => stopCountdown() };
}
