let pending: string | undefined;

/** Leaves a one-time confirmation for the next screen (e.g. "This device is set up"). */
export function setFlash(message: string): void {
  pending = message;
}

/** Takes the pending confirmation, if any. */
export function takeFlash(): string | undefined {
  const message = pending;
  pending = undefined;
  return message;
}
