import { AUTHENTICATOR_TRANSPORTS, type AuthenticatorTransportName } from '@countersign/shared';
import type { DeviceRecord } from './device-record.ts';

const KNOWN: ReadonlySet<string> = new Set(AUTHENTICATOR_TRANSPORTS);

/**
 * The transports worth keeping and sending back: the known AuthenticatorTransport values among
 * `listed`, each once, in the order listed; unknown ones are ignored, as WebAuthn Level 3 §5.8.4
 * has clients ignore them. So a stored list holds at most six short names, whatever a client sent
 * at enrollment (7,000 × `usb` was once kept and echoed in every prompt's `allowCredentials`).
 * @see WebAuthn Level 3 §5.8.3 (PublicKeyCredentialDescriptor), §5.8.4 (AuthenticatorTransport)
 */
export function knownTransports(listed: readonly unknown[] | undefined): AuthenticatorTransportName[] {
  const kept = new Set<AuthenticatorTransportName>();
  for (const name of listed ?? []) if (typeof name === 'string' && KNOWN.has(name)) kept.add(name as AuthenticatorTransportName);
  return [...kept];
}

/**
 * A device's passkey as a prompt names it (`allowCredentials`, `excludeCredentials`): its id and
 * its known transports. Read through {@link knownTransports} again, so a device stored before the
 * transports were checked is sent back bounded too.
 */
export function credentialDescriptor(device: Pick<DeviceRecord, 'credential_id' | 'transports'>): { id: string; transports: AuthenticatorTransportName[] } {
  return { id: device.credential_id, transports: knownTransports(device.transports) };
}
