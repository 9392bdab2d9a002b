import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { vapidSubjectProblem } from './vapid-subject.ts';
import { PRODUCTION } from './config.test-support.ts';

/** What production requires: an exact NODE_ENV and a VAPID subject someone can be reached at. */
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

describe('vapidSubjectProblem', () => {
  it('explains what is wrong', () => {
    expect(vapidSubjectProblem('mailto:ops@acme.local')).toBe('mailto: domain acme.local is under .local, which is reserved and never reachable');
    expect(vapidSubjectProblem('https://10.0.0.1/')).toBe('https: host 10.0.0.1 is an IP address, not a domain');
    expect(vapidSubjectProblem('mailto:ops@acme-payments.com')).toBeNull();
  });
});
