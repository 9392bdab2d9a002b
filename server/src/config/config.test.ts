import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { unreachableDomainReason } from './host-names.ts';
import { settleRpId } from './rp-id.ts';
import { vapidSubjectProblem } from './vapid-subject.ts';

/** The smallest production environment that starts. */
const PRODUCTION = {
  NODE_ENV: 'production',
  PUBLIC_URL: 'https://approve.acme-payments.com',
  ADMIN_TOKEN: 'a'.repeat(32),
  VAPID_SUBJECT: 'mailto:ops@acme-payments.com',
};

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

describe('loadConfig: NODE_ENV', () => {
  it.each([
    [undefined, false],
    ['development', false],
    ['test', false],
    ['production', true],
  ])('takes NODE_ENV=%s (production: %s)', (nodeEnv, production) => {
    expect(loadConfig({ ...PRODUCTION, NODE_ENV: nodeEnv }).production).toBe(production);
  });

  // Each of these, read as "not production", started a production deployment in development mode.
  it.each(['Production', 'PRODUCTION', 'prod', ' production', 'production ', 'dev', 'staging', ''])('refuses NODE_ENV=%j at start, naming the accepted values', (nodeEnv) => {
    expect(() => loadConfig({ ...PRODUCTION, NODE_ENV: nodeEnv })).toThrow(`invalid configuration:\n  NODE_ENV: must be exactly one of production, development, test (or unset, which is development), not ${JSON.stringify(nodeEnv)}`);
  });
});

describe('loadConfig: the VAPID subject in production', () => {
  it('starts with a mailto: or https: contact at a public domain', () => {
    expect(loadConfig(PRODUCTION).vapid.subject).toBe('mailto:ops@acme-payments.com');
    expect(loadConfig({ ...PRODUCTION, VAPID_SUBJECT: 'https://acme-payments.com/security' }).vapid.subject).toBe('https://acme-payments.com/security');
  });

  it('requires one', () => {
    const { VAPID_SUBJECT: _omitted, ...withoutSubject } = PRODUCTION;
    expect(() => loadConfig(withoutSubject)).toThrow(/VAPID_SUBJECT .*required in production/);
  });

  it.each([
    'mailto:admin@localhost',
    'mailto:admin@countersign.invalid',
    'mailto:ops@printer.local',
    'mailto:ops@acme.test',
    'mailto:ops@acme.example',
    'mailto:ops@example.com',
    'mailto:ops@dev.localhost',
    'mailto:ops@corp.internal',
    'mailto:ops@[192.0.2.1]',
    'mailto:ops@intranet',
    'mailto:ops',
    'mailto:a@acme-payments.com,b@acme-payments.com',
    'https://localhost/contact',
    'https://127.0.0.1/contact',
    'https://push.example/contact',
    'http://acme-payments.com/contact',
    'ops@acme-payments.com',
  ])('refuses VAPID_SUBJECT=%s', (subject) => {
    expect(() => loadConfig({ ...PRODUCTION, VAPID_SUBJECT: subject })).toThrow(/VAPID_SUBJECT/);
  });

  it('leaves the development placeholder alone outside production', () => {
    expect(loadConfig({ VAPID_SUBJECT: 'mailto:admin@localhost' }).vapid.subject).toBe('mailto:admin@localhost');
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

describe('vapidSubjectProblem', () => {
  it('explains what is wrong', () => {
    expect(vapidSubjectProblem('mailto:ops@acme.local')).toBe('mailto: domain acme.local is under .local, which is reserved and never reachable');
    expect(vapidSubjectProblem('https://10.0.0.1/')).toBe('https: host 10.0.0.1 is an IP address, not a domain');
    expect(vapidSubjectProblem('mailto:ops@acme-payments.com')).toBeNull();
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

describe('loadConfig: rate limits and trusted proxies', () => {
  it('has defaults for every limit, three streams per session and no trusted proxy', () => {
    const config = loadConfig({});
    expect(config.rateLimits).toStrictEqual({
      bcAuthorize: { count: 300, seconds: 60 },
      token: { count: 1200, seconds: 60 },
      redeem: { count: 300, seconds: 60 },
      outcome: { count: 300, seconds: 60 },
      clientAuthFailures: { count: 30, seconds: 60 },
      adminAuthFailures: { count: 10, seconds: 300 },
      deviceViews: { count: 120, seconds: 60 },
      deviceStreams: { count: 10, seconds: 60 },
      deviceChanges: { count: 30, seconds: 60 },
      enrollmentFailures: { count: 30, seconds: 60 },
    });
    expect(config.deviceStreamsMax).toBe(3);
    expect(config.maxDevicesPerUser).toBe(10);
    expect(config.trustedProxies).toStrictEqual([]);
  });

  it('reads a limit as <count>/<seconds>', () => {
    expect(loadConfig({ RATE_LIMIT_TOKEN: ' 50 / 10 ' }).rateLimits.token).toStrictEqual({ count: 50, seconds: 10 });
  });

  it.each(['0/60', '10/0', '10', '10/60/2', '-1/60', '1.5/60', 'ten/60'])('refuses the limit %s at start', (value) => {
    expect(() => loadConfig({ RATE_LIMIT_REDEEM: value })).toThrow(/RATE_LIMIT_REDEEM: must be <count>\/<seconds>/);
  });

  it('reads TRUSTED_PROXIES as CIDR ranges, an address as itself alone and an IPv4-mapped one as IPv4', () => {
    expect(loadConfig({ TRUSTED_PROXIES: '10.0.0.0/8, 192.0.2.1,::1 , ::ffff:198.51.100.0/120' }).trustedProxies).toStrictEqual(['10.0.0.0/8', '192.0.2.1/32', '0:0:0:0:0:0:0:1/128', '198.51.100.0/24']);
  });

  it.each(['10.0.0.0/33', 'proxy.internal', '10.0.0', '0x0a.0.0.1', '10.0.0.0/', '::ffff:0:0/90'])('refuses the trusted proxy %s at start', (entry) => {
    expect(() => loadConfig({ TRUSTED_PROXIES: `10.0.0.1,${entry}` })).toThrow(`TRUSTED_PROXIES: ${entry} is not an IP address or CIDR range`);
  });
});

describe('loadConfig: audit retention', () => {
  it('keeps audit events 400 days unless AUDIT_RETENTION_DAYS says otherwise', () => {
    expect(loadConfig({}).auditRetentionSeconds).toBe(400 * 86_400);
    expect(loadConfig({ AUDIT_RETENTION_DAYS: '30' }).auditRetentionSeconds).toBe(30 * 86_400);
  });

  it.each(['0', '-1', '1.5', 'forever', '36501'])('refuses AUDIT_RETENTION_DAYS=%s', (days) => {
    expect(() => loadConfig({ AUDIT_RETENTION_DAYS: days })).toThrow(/AUDIT_RETENTION_DAYS/);
  });
});
