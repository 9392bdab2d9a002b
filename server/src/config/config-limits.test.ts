import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';

/** Rate limits, trusted proxies and the audit retention, with their defaults and what is refused at start. */
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
