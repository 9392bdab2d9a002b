import { isApiError } from '../api/index.ts';
import { h } from '../ui/dom.ts';

/**
 * What to tell the person about a failure: the server's `error_description` for API errors, a
 * plain sentence for the WebAuthn errors a person can cause or fix.
 */
export function errorMessage(error: unknown): string {
  if (isApiError(error)) return error.message;
  const name = error instanceof Error ? error.name : '';
  switch (name) {
    case 'NotAllowedError':
    case 'AbortError':
      return 'The passkey request was cancelled or timed out. Nothing was sent.';
    case 'InvalidStateError':
      return 'This device already has a passkey for this account.';
    case 'SecurityError':
      return "This page's address does not match the server's passkey settings, so the browser refused the passkey.";
    case 'NotSupportedError':
      return "This device can't create a passkey of the kind the server asks for.";
    default:
      return error instanceof Error && error.message ? error.message : 'Something went wrong. Try again.';
  }
}

/** True when the person dismissed or timed out the passkey prompt: nothing reached the server. */
export function isPasskeyCancelled(error: unknown): boolean {
  return error instanceof Error && (error.name === 'NotAllowedError' || error.name === 'AbortError');
}

/** An error line that screen readers announce at once. */
export function errorBanner(message: string): HTMLElement {
  return h('p', { class: 'banner banner-error', testid: 'error', attrs: { role: 'alert' } }, message);
}
