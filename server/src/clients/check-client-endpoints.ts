import { CountersignError } from '@countersign/shared';
import { endpointProblem } from '../outbound/index.ts';
import type { NewClient } from './create-client.ts';

/**
 * The client metadata members that hold a URL the server will call. Only the notification
 * endpoint today: keys come inline (`jwks`), never as a `jwks_uri` fetched later. A member added
 * to this list is checked at registration like the others.
 */
export const CLIENT_URL_FIELDS = ['backchannel_client_notification_endpoint'] as const;

/**
 * Refuses client metadata naming a URL the server must not call in this deployment mode
 * (`endpointProblem`): in production anything but `https:` on a public host, an internal address in
 * any spelling, or an internal name; in development anything but `https:` or `http:` on this
 * machine; in both, URLs with `user:pass@`. Run before the client is stored, so a refusal stores
 * nothing. The address the host resolves to is checked again at send time.
 *
 * @param client The validated metadata.
 * @param mode The deployment mode (`Config.production`).
 * @throws CountersignError `invalid_client_metadata` (400), naming the member and the reason.
 * @see RFC 7591 §3.2.2 (`invalid_client_metadata`), CIBA Core 1.0 §4 (the endpoint "MUST be HTTPS")
 */
export function checkClientEndpoints(client: Pick<NewClient, (typeof CLIENT_URL_FIELDS)[number]>, mode: { production: boolean }): void {
  for (const field of CLIENT_URL_FIELDS) {
    const url = client[field];
    if (url === undefined) continue;
    const problem = endpointProblem(url, mode);
    if (problem) throw new CountersignError('invalid_client_metadata', `${field} is refused: ${problem}.`);
  }
}
