// What happens when the admin API refuses the token: the console goes back to its sign-in screen.
// The screens report refusals here; main.ts says what "back to sign in" is (so no screen imports it).
import { ApiError, useToken } from './api.ts';

let onRefused: (message: string) => void = () => {};

/** Names what to do once the token is refused (main.ts: show the sign-in screen with `message`). */
export function whenTokenRefused(listener: (message: string) => void): void {
  onRefused = listener;
}

/** An answer that says the token is no good (any more) forgets it and sends the operator back to sign in; answers whether it was one. */
export function handleAuthError(error: unknown): boolean {
  if (error instanceof ApiError && (error.code === 'invalid_token' || error.status === 401)) {
    useToken(null);
    onRefused('The admin token was refused. Sign in again.');
    return true;
  }
  return false;
}
