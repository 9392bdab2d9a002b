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

  it('takes an RP_ID that is a parent domain of PUBLIC_URL\'s host', () => {
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

  it('refuses an IP address as PUBLIC_URL in production only', () => {
    expect(() => loadConfig({ ...PRODUCTION, PUBLIC_URL: 'https://203.0.113.7' })).toThrow(/IP address/);
    expect(loadConfig({ PUBLIC_URL: 'http://127.0.0.1:8080' }).rpId).toBe('127.0.0.1');
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
    expect(settleRpId(new URL('https://Approve.ACME-payments.com'), undefined, true)).toBe('approve.acme-payments.com');
  });

  it('treats an empty RP_ID as unset', () => {
    expect(settleRpId(new URL('https://approve.acme-payments.com'), '', true)).toBe('approve.acme-payments.com');
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

describe('loadConfig: audit retention', () => {
  it('keeps audit events 400 days unless AUDIT_RETENTION_DAYS says otherwise', () => {
    expect(loadConfig({}).auditRetentionSeconds).toBe(400 * 86_400);
    expect(loadConfig({ AUDIT_RETENTION_DAYS: '30' }).auditRetentionSeconds).toBe(30 * 86_400);
  });

  it.each(['0', '-1', '1.5', 'forever', '36501'])('refuses AUDIT_RETENTION_DAYS=%s', (days) => {
    expect(() => loadConfig({ AUDIT_RETENTION_DAYS: days })).toThrow(/AUDIT_RETENTION_DAYS/);
  });
});
