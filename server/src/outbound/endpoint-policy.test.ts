import { describe, expect, it } from 'vitest';
import { forbiddenAddressReason } from './address-policy.ts';
import { endpointProblem } from './endpoint-policy.ts';

const production = { production: true };
const development = { production: false };

describe('endpointProblem in production', () => {
  it.each([
    // IPv4, in every spelling the WHATWG URL parser reads as one
    ['https://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local address/],
    ['https://2852039166/', /169\.254\.169\.254 is a link-local/], // decimal
    ['https://0251.0376.0251.0376/', /169\.254\.169\.254 is a link-local/], // octal
    ['https://0xa9.0xfe.0xa9.0xfe/', /169\.254\.169\.254 is a link-local/], // hex
    ['https://0xa9fea9fe/', /169\.254\.169\.254 is a link-local/], // one hex number
    ['https://169.254.43518/', /169\.254\.169\.254 is a link-local/], // three parts
    ['https://017700000001/', /127\.0\.0\.1 is a loopback address/],
    ['https://127.1/', /127\.0\.0\.1 is a loopback/],
    ['https://%31%32%37.0.0.1/', /127\.0\.0\.1 is a loopback/], // percent-encoded
    ['https://127.0.0.1./', /127\.0\.0\.1 is a loopback/], // trailing dot
    ['https://127.8.9.10:8443/', /127\.8\.9\.10 is a loopback/],
    ['https://10.0.0.1/', /private address \(RFC 1918\)/],
    ['https://172.16.5.4/', /private address/],
    ['https://172.31.255.255/', /private address/],
    ['https://192.168.1.1/', /private address/],
    ['https://100.64.0.1/', /carrier-grade NAT/],
    ['https://100.127.255.254/', /carrier-grade NAT/],
    ['https://224.0.0.1/', /multicast/],
    ['https://239.255.255.250/', /multicast/],
    ['https://255.255.255.255/', /broadcast/],
    ['https://0.0.0.0/', /0\.0\.0\.0 is an unspecified address/],
    ['https://0/', /0\.0\.0\.0 is an unspecified address/],
    ['https://0.1.2.3/', /unspecified/],
    ['https://240.0.0.1/', /reserved/],
    ['https://192.0.2.1/', /reserved/], // documentation
    ['https://198.18.0.1/', /reserved/], // benchmarking
    ['https://192.0.0.8/', /reserved/], // IETF protocol assignments
    // IPv6
    ['https://[::]/', /\[::\] is an unspecified address/],
    ['https://[::1]/', /\[::1\] is a loopback address/],
    ['https://[0:0:0:0:0:0:0:1]/', /\[::1\] is a loopback/],
    ['https://[fe80::1]/', /link-local/],
    ['https://[fc00::1]/', /unique-local/],
    ['https://[fd00:ec2::254]/', /unique-local/], // a cloud's IPv6 metadata service
    ['https://[fec0::1]/', /site-local/],
    ['https://[ff02::1]/', /multicast/],
    ['https://[2001:db8::1]/', /reserved/], // documentation
    ['https://[2001::1]/', /Teredo/],
    ['https://[::127.0.0.1]/', /outside the global unicast range/], // IPv4-compatible, deprecated
    ['https://[4000::1]/', /outside the global unicast range/],
    // IPv6 carrying an IPv4 address the connection ends up at
    ['https://[::ffff:169.254.169.254]/', /IPv4-mapped address embedding 169\.254\.169\.254, a link-local/],
    ['https://[::ffff:7f00:1]/', /IPv4-mapped address embedding 127\.0\.0\.1, a loopback/],
    ['https://[0:0:0:0:0:ffff:10.1.2.3]/', /IPv4-mapped address embedding 10\.1\.2\.3, a private/],
    ['https://[::ffff:0:a9fe:a9fe]/', /IPv4-translated address embedding 169\.254\.169\.254/],
    ['https://[64:ff9b::169.254.169.254]/', /NAT64 address embedding 169\.254\.169\.254/],
    ['https://[64:ff9b::a00:1]/', /NAT64 address embedding 10\.0\.0\.1/],
    ['https://[64:ff9b:1::1]/', /local-use NAT64/],
    ['https://[2002:a9fe:a9fe::1]/', /6to4 address embedding 169\.254\.169\.254/],
    ['https://[2002:7f00:1::]/', /6to4 address embedding 127\.0\.0\.1/],
    // names that can only be internal, with and without the trailing dot
    ['https://localhost/', /localhost names this machine/],
    ['https://localhost./', /names this machine/],
    ['https://LocalHost/', /names this machine/],
    ['https://api.localhost/', /names this machine/],
    ['https://api.localhost./', /names this machine/],
    ['https://db.internal/', /under \.internal/],
    ['https://db.internal./', /under \.internal/],
    ['https://printer.local/', /under \.local/],
    ['https://printer.local./', /under \.local/],
    ['https://router.home.arpa/', /home\.arpa/],
    ['https://metadata.google.internal/', /cloud metadata service/],
    ['https://metadata.google.internal./', /cloud metadata service/],
    ['https://metadata.tencentyun.com/', /cloud metadata service/],
    ['https://metadata/', /cloud metadata service/],
    ['https://intranet/', /single-label name/],
    ['https://intranet./', /single-label name/],
    ['https://acme.test/', /under \.test/],
    // scheme and credentials
    ['http://client.acme-payments.com/cb', /must be https/],
    ['https://user:pass@client.acme-payments.com/cb', /user:pass@/],
    ['https://token@client.acme-payments.com/cb', /user:pass@/],
    ['https://:secret@client.acme-payments.com/cb', /user:pass@/],
    ['not a url', /not a URL/],
  ])('refuses %s', (url, reason) => {
    expect(endpointProblem(url, production)).toMatch(reason);
  });

  it.each([
    'https://client.acme-payments.com/cb',
    'https://client.acme-payments.com./cb',
    'https://Client.ACME-payments.com:8443/ciba/notify?tenant=eu',
    'https://xn--bcher-kva.example.de/cb',
    'https://93.184.215.14/cb',
    'https://8.8.8.8/',
    'https://[2606:4700:4700::1111]/cb',
    'https://[2a00:1450:4001:80b::200e]/cb',
    'https://[::ffff:8.8.8.8]/', // mapped, but to a public address
    'https://[64:ff9b::8.8.8.8]/',
    'https://[2002:808:808::1]/',
    'https://metadata-service.acme-payments.com/', // not a first label `metadata`
    'https://172.32.0.1/', // just past 172.16.0.0/12
    'https://100.128.0.1/', // just past 100.64.0.0/10
  ])('accepts %s', (url) => {
    expect(endpointProblem(url, production)).toBeNull();
  });
});

describe('endpointProblem in development', () => {
  it.each(['http://localhost:9000/cb', 'http://127.0.0.1:9000/cb', 'http://[::1]:9000/cb', 'http://app.localhost/cb', 'https://192.168.1.20/cb', 'https://client.acme-payments.com/cb'])('accepts %s (loopback and http://localhost, docs/design.md "Configuration and start-up")', (url) => {
    expect(endpointProblem(url, development)).toBeNull();
  });

  it.each(['http://client.acme-payments.com/cb', 'http://10.0.0.1/cb', 'http://169.254.169.254/', 'ftp://localhost/cb', 'http://user:pass@localhost:9000/cb'])('refuses %s', (url) => {
    expect(endpointProblem(url, development)).not.toBeNull();
  });
});

describe('forbiddenAddressReason', () => {
  it('judges the dotted and IPv6 forms DNS answers with, and nothing else', () => {
    expect(forbiddenAddressReason('169.254.169.254')).toBe('a link-local address');
    expect(forbiddenAddressReason('::ffff:127.0.0.1')).toBe('an IPv4-mapped address embedding 127.0.0.1, a loopback address');
    expect(forbiddenAddressReason('93.184.215.14')).toBeNull();
    expect(forbiddenAddressReason('2606:4700::1111')).toBeNull();
    expect(forbiddenAddressReason('fe80::1%eth0')).toBe('not an IP address');
    expect(forbiddenAddressReason('2852039166')).toBe('not an IP address');
    expect(forbiddenAddressReason('client.acme-payments.com')).toBe('not an IP address');
  });
});
