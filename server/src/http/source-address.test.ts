import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { sourceAddress, UNKNOWN_SOURCE } from './source-address.ts';

/** The source address a request from `peer` (none: no socket) with these headers is counted under. */
async function sourceOf(trustedProxies: string[], peer: string | null, headers: Record<string, string> = {}): Promise<string> {
  const app = new Hono();
  app.get('/', (c) => c.text(sourceAddress(c, trustedProxies)));
  const env = peer === null ? undefined : { incoming: { socket: { remoteAddress: peer, remotePort: 5000, remoteFamily: peer.includes(':') ? 'IPv6' : 'IPv4' } } };
  return (await app.request('http://localhost/', { headers }, env)).text();
}

const PROXIES = ['10.0.0.0/8', '0:0:0:0:0:0:0:1/128'];

describe('sourceAddress', () => {
  it('is the socket’s peer', async () => {
    expect(await sourceOf([], '203.0.113.5')).toBe('203.0.113.5');
    expect(await sourceOf([], '::ffff:203.0.113.5')).toBe('203.0.113.5');
  });

  it('counts an IPv6 peer by its /64', async () => {
    expect(await sourceOf([], '2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(await sourceOf([], '2001:0db8:0001:0002::1')).toBe('2001:db8:1:2::/64');
    expect(await sourceOf([], '2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });

  it('is one shared name for every request without a socket, whatever it claims', async () => {
    expect(await sourceOf([], null)).toBe(UNKNOWN_SOURCE);
    expect(await sourceOf(PROXIES, null, { 'x-forwarded-for': '198.51.100.7' })).toBe(UNKNOWN_SOURCE);
  });

  it('ignores X-Forwarded-For without trusted proxies, and from a peer that is not one', async () => {
    expect(await sourceOf([], '203.0.113.5', { 'x-forwarded-for': '198.51.100.7' })).toBe('203.0.113.5');
    expect(await sourceOf(PROXIES, '203.0.113.5', { 'x-forwarded-for': '198.51.100.7' })).toBe('203.0.113.5');
  });

  it('behind trusted proxies, is the rightmost hop that is not one: what a client wrote further left is not believed', async () => {
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': '198.51.100.7' })).toBe('198.51.100.7');
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': '192.0.2.66, 198.51.100.7' })).toBe('198.51.100.7');
    expect(await sourceOf(PROXIES, '::1', { 'x-forwarded-for': '192.0.2.66, 198.51.100.7, 10.1.2.3' })).toBe('198.51.100.7');
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': '2001:db8:9::1' })).toBe('2001:db8:9:0::/64');
  });

  it('drops the port a proxy appends to an address (IPv4 a.b.c.d:port, IPv6 [v6]:port), also on a proxy’s own hop', async () => {
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': '192.0.2.50:5555' })).toBe('192.0.2.50');
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': '[2001:db8::1]:443' })).toBe('2001:db8:0:0::/64');
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': '[2001:db8:5::1]' })).toBe('2001:db8:5:0::/64');
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': '[::ffff:192.0.2.51]:80' })).toBe('192.0.2.51');
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': '198.51.100.7:1, 10.0.0.2:443' })).toBe('198.51.100.7');
    // Two clients behind one port-appending proxy are two sources, not the proxy's one.
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': '192.0.2.60:5555' })).toBe('192.0.2.60');
  });

  it('takes an entry that is not an address as the name its trusted proxy gave the client, bounded and never an address', async () => {
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': '198.51.100.7, unknown' })).toBe('forwarded:unknown');
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': '_hidden-node' })).toBe('forwarded:_hidden-node');
    // Not address spellings: a port out of range, a prefix, a short IPv4 form, an IPv6 without brackets before its port.
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': '192.0.2.50:70000' })).toBe('forwarded:192.0.2.50:70000');
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': '2001:db8::/64' })).toBe('forwarded:2001:db8::/64');
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': '10.1' })).toBe('forwarded:10.1');
    // A long name is counted by its hash: at most 64 characters of its own, and a name of fixed size otherwise.
    const long = await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': 'x'.repeat(65) });
    expect(long).toMatch(/^forwarded:#[A-Za-z0-9_-]{43}$/);
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': 'x'.repeat(65) })).toBe(long);
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': 'y'.repeat(65) })).not.toBe(long);
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': 'x'.repeat(64) })).toBe(`forwarded:${'x'.repeat(64)}`);
  });

  it('stops at the last trusted hop when a trusted proxy appended nothing', async () => {
    expect(await sourceOf(PROXIES, '10.0.0.1')).toBe('10.0.0.1');
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': '198.51.100.7, ' })).toBe('10.0.0.1');
    expect(await sourceOf(PROXIES, '10.0.0.1', { 'x-forwarded-for': '10.0.0.9, 10.0.0.8' })).toBe('10.0.0.9');
  });

  it('does not read the Forwarded header, which a proxy that writes only X-Forwarded-For passes through from the client', async () => {
    expect(await sourceOf(PROXIES, '10.0.0.1', { forwarded: 'for=198.51.100.99', 'x-forwarded-for': '192.0.2.50' })).toBe('192.0.2.50');
    expect(await sourceOf(PROXIES, '10.0.0.1', { forwarded: 'for=198.51.100.99' })).toBe('10.0.0.1');
  });
});
