import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { unreachableDomainReason } from './host-names.ts';
import { settleRpId } from './rp-id.ts';
import { PRODUCTION } from './config.test-support.ts';

/** Where the server says it is: PUBLIC_URL, the WebAuthn origin and RP ID, and which host names it accepts. */
describe('loadConfig: origins', () => {
  it('takes the WebAuthn origin and RP ID from PUBLIC_URL', () => {
    const config = loadConfig({ PUBLIC_URL: 'https://approve.acme-payments.com:8443' });
    expect(config.publicUrl).toBe('https://approve.acme-payments.com:8443');
    expect(config.rpId).toBe('approve.acme-payments.com');
  });

  it('defaults to http://localhost:PORT in development', () => {
    const config = loadConfig({ PORT: '9090' });
    expect(config).toMatchObject({ publicUrl: 'http://localhost:9090', rpId: 'localhost', production: false });
  });

  it("takes an RP_ID that is a parent domain of PUBLIC_URL's host", () => {
    expect(loadConfig({ PUBLIC_URL: 'https://approve.acme-payments.com', RP_ID: 'acme-payments.com' }).rpId).toBe('acme-payments.com');
    expect(loadConfig({ PUBLIC_URL: 'https://approve.acme-payments.com', RP_ID: 'approve.acme-payments.com' }).rpId).toBe('approve.acme-payments.com');
  });

  it.each([
    ['https://acme-payments.com', /without a scheme/],
    ['http://approve.acme-payments.com', /without a scheme/],
    ['acme-payments.com:443', /without a port/],
    ['approve.acme-payments.com:', /without a port/],
    ['acme-payments.com/approve', /bare host name/],
    ['user@acme-payments.com', /bare host name/],
    ['203.0.113.7', /IP address/],
    ['[::1]', /IP address/],
    ['ACME-payments.com', /lower case/],
    ['acme_payments.com', /not a valid host name/],
    ['other-bank.com', /parent domain/],
    ['payments.com', /parent domain/], // a suffix of the string, not a parent domain
    ['com', /top-level domain/],
  ])('refuses RP_ID=%s', (rpId, message) => {
    expect(() => loadConfig({ PUBLIC_URL: 'https://approve.acme-payments.com', RP_ID: rpId })).toThrow(message);
  });

  it('accepts localhost as the parent of a *.localhost development origin', () => {
    expect(loadConfig({ PUBLIC_URL: 'http://app.localhost:8080', RP_ID: 'localhost' }).rpId).toBe('localhost');
  });

  it('refuses a PUBLIC_URL with a path, and plain http in production', () => {
    expect(() => loadConfig({ PUBLIC_URL: 'https://acme-payments.com/approve' })).toThrow(/must be an origin/);
    expect(() => loadConfig({ ...PRODUCTION, PUBLIC_URL: 'http://approve.acme-payments.com' })).toThrow(/https in production/);
  });

  it.each([
    ['https://203.0.113.7 in production', { ...PRODUCTION, PUBLIC_URL: 'https://203.0.113.7' }, 'https://203.0.113.7', ''],
    ['https://[2001:db8::7]:8443 in production', { ...PRODUCTION, PUBLIC_URL: 'https://[2001:db8::7]:8443' }, 'https://[2001:db8::7]:8443', ':8443'],
    ['http://127.0.0.1:8080 in development', { PUBLIC_URL: 'http://127.0.0.1:8080' }, 'http://127.0.0.1:8080', ':8080'],
    ['http://[::1]:8080 in development', { PUBLIC_URL: 'http://[::1]:8080' }, 'http://[::1]:8080', ':8080'],
    ['http://0x7f.1:8080 (127.0.0.1) in development', { PUBLIC_URL: 'http://0x7f.1:8080' }, 'http://127.0.0.1:8080', ':8080'],
    ['http://127.0.0.1:8080 with RP_ID=localhost', { PUBLIC_URL: 'http://127.0.0.1:8080', RP_ID: 'localhost' }, 'http://127.0.0.1:8080', ':8080'],
    ['http://10.0.0.5 with NODE_ENV=test', { NODE_ENV: 'test', PUBLIC_URL: 'http://10.0.0.5' }, 'http://10.0.0.5', ''],
  ])("refuses an IP address as PUBLIC_URL's host, in every mode: %s", (_case, environment, origin, port) => {
    expect(() => loadConfig(environment)).toThrow(
      `invalid configuration: PUBLIC_URL ${origin} has an IP address as its host, and browsers refuse an IP address as the WebAuthn RP ID, so no passkey could be enrolled: use http://localhost${port} in development, or a domain name (https://approve.example.com) in production`,
    );
  });

  it('starts on localhost in development and on a domain name in production', () => {
    expect(loadConfig({ PUBLIC_URL: 'http://localhost:8080' }).rpId).toBe('localhost');
    expect(loadConfig(PRODUCTION).rpId).toBe('approve.acme-payments.com');
  });
});

describe('settleRpId', () => {
  it('answers the host in lower case', () => {
    expect(settleRpId(new URL('https://Approve.ACME-payments.com'), undefined)).toBe('approve.acme-payments.com');
  });

  it('treats an empty RP_ID as unset', () => {
    expect(settleRpId(new URL('https://approve.acme-payments.com'), '')).toBe('approve.acme-payments.com');
  });
});

describe('unreachableDomainReason', () => {
  it.each(['acme-payments.com', 'mail.acme-payments.co.uk', 'xn--bcher-kva.example.de', 'Acme-Payments.COM'])('accepts %s', (host) => {
    expect(unreachableDomainReason(host)).toBeNull();
  });

  it.each(['localhost', 'acme', 'a..b', '-acme.com', 'example.org', 'router.home.arpa', '::1'])('refuses %s', (host) => {
    expect(unreachableDomainReason(host)).not.toBeNull();
  });
});
