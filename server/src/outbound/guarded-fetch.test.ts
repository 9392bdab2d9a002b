import type { LookupAddress } from 'node:dns';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listenCounting, type CountingListener } from './counting-listener.test-support.ts';
import { ForbiddenEndpointError, forbiddenEndpointCause } from './forbidden-endpoint.ts';
import { createGuardedFetch } from './guarded-fetch.ts';
import { createGuardedLookup, type HostResolver, type ResolvedAddress } from './guarded-lookup.ts';

/** A resolver that answers `addresses` for every name, as a rebinding DNS server would at send time. */
const answering = (...addresses: string[]): HostResolver & { asked: string[] } => {
  const asked: string[] = [];
  const resolve = async (hostname: string): Promise<ResolvedAddress[]> => {
    asked.push(hostname);
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolve, { asked });
};

const post: RequestInit = { method: 'POST', headers: { authorization: 'Bearer client-notification-token' }, body: '{}', redirect: 'manual', signal: AbortSignal.timeout(2000) };

describe('createGuardedFetch', () => {
  let listener: CountingListener;

  beforeEach(async () => {
    // Any TCP connection counts, before TLS: a guard that let one through would show here.
    listener = await listenCounting();
  });
  afterEach(() => listener.close());

  it('counts a connection made without the guard (the listener is reachable)', async () => {
    await expect(fetch(`https://127.0.0.1:${listener.port}/cb`, post)).rejects.toThrow();
    expect(listener.connections).toBe(1);
  });

  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['::ffff:127.0.0.1', 'an IPv4-mapped address embedding 127.0.0.1, a loopback address'],
    ['169.254.169.254', 'a link-local address'],
    ['10.0.0.7', 'a private address (RFC 1918)'],
  ])('does not connect when a public-looking name resolves to %s', async (address, why) => {
    const resolve = answering(address);
    const guarded = createGuardedFetch({ resolve });
    const failure = await guarded(`https://callback.acme-payments.com:${listener.port}/cb`, post).catch((error: unknown) => error);
    expect(listener.connections).toBe(0);
    expect(resolve.asked).toEqual(['callback.acme-payments.com']);
    expect(forbiddenEndpointCause(failure)?.reason).toBe(`its host callback.acme-payments.com resolves to ${address}, ${why}`);
  });

  it('does not connect to an IP literal (no lookup happens for one), in any spelling', async () => {
    const resolve = answering('93.184.215.14');
    const guarded = createGuardedFetch({ resolve });
    for (const url of [`https://127.0.0.1:${listener.port}/cb`, `https://2130706433:${listener.port}/cb`, `https://[::ffff:127.0.0.1]:${listener.port}/cb`]) {
      const failure = await guarded(url, post).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ForbiddenEndpointError);
      expect((failure as ForbiddenEndpointError).reason).toMatch(/loopback/);
    }
    expect(resolve.asked).toEqual([]);
    expect(listener.connections).toBe(0);
  });

  it('refuses plain http and credentials before resolving anything', async () => {
    const resolve = answering('93.184.215.14');
    const guarded = createGuardedFetch({ resolve });
    await expect(guarded(`http://callback.acme-payments.com:${listener.port}/cb`, post)).rejects.toThrow(/must be https/);
    await expect(guarded(`https://u:p@callback.acme-payments.com:${listener.port}/cb`, post)).rejects.toThrow(/user:pass@/);
    expect(resolve.asked).toEqual([]);
  });
});

describe('createGuardedLookup', () => {
  const lookup = (resolve: HostResolver, options: { all?: boolean; family?: number }) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }>((done) => {
      createGuardedLookup(resolve)('callback.acme-payments.com', options, (error, address, family) => done({ error, address, family }));
    });

  it('refuses when any of the addresses is internal, not only the first (the socket would fall back to the next)', async () => {
    const { error } = await lookup(answering('93.184.215.14', '2606:4700::1111', '127.0.0.1'), { all: true });
    expect(error).toBeInstanceOf(ForbiddenEndpointError);
    expect((error as ForbiddenEndpointError).reason).toBe('its host callback.acme-payments.com resolves to 127.0.0.1, a loopback address');
  });

  it('hands the socket exactly the addresses it checked', async () => {
    const resolve = answering('93.184.215.14', '2606:4700::1111');
    expect(await lookup(resolve, { all: true })).toEqual({
      error: null,
      address: [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:4700::1111', family: 6 },
      ],
      family: undefined,
    });
    expect(await lookup(resolve, {})).toEqual({ error: null, address: '93.184.215.14', family: 4 });
    expect(await lookup(resolve, { family: 6 })).toEqual({ error: null, address: '2606:4700::1111', family: 6 });
  });

  it('passes a resolver failure on as it is', async () => {
    const failing: HostResolver = async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND callback.acme-payments.com'), { code: 'ENOTFOUND' });
    };
    const { error } = await lookup(failing, {});
    expect(error?.code).toBe('ENOTFOUND');
    expect(error).not.toBeInstanceOf(ForbiddenEndpointError);
  });
});
