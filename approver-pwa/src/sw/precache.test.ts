import { describe, expect, it } from 'vitest';
import { fetchStrategy, readPrecacheManifest, shellCacheName, staleCacheNames, type RequestLike } from './precache.ts';

const ORIGIN = 'https://approve.example.com';
const manifest = { version: 'abc123', urls: ['/index.html', '/assets/main-1a2b.js', '/assets/main-3c4d.css', '/icons/icon-192.png', '/manifest.webmanifest'] };
const get = (path: string, mode: RequestMode = 'no-cors'): RequestLike => ({ method: 'GET', url: new URL(path, ORIGIN).href, mode });

describe('fetchStrategy', () => {
  it('answers a navigation to the app from the cached shell', () => {
    expect(fetchStrategy(get('/', 'navigate'), ORIGIN, manifest)).toBe('shell');
    expect(fetchStrategy(get('/?utm=x', 'navigate'), ORIGIN, manifest)).toBe('shell');
    expect(fetchStrategy(get('/index.html', 'navigate'), ORIGIN, manifest)).toBe('shell');
  });

  it('answers the precached files from the cache', () => {
    expect(fetchStrategy(get('/assets/main-1a2b.js', 'cors'), ORIGIN, manifest)).toBe('precached');
    expect(fetchStrategy(get('/icons/icon-192.png'), ORIGIN, manifest)).toBe('precached');
    expect(fetchStrategy(get('/manifest.webmanifest', 'cors'), ORIGIN, manifest)).toBe('precached');
  });

  it('never answers the API, even if it were listed', () => {
    const listed = { ...manifest, urls: [...manifest.urls, '/api/device/requests'] };
    expect(fetchStrategy(get('/api/device/requests', 'cors'), ORIGIN, listed)).toBe('network');
    expect(fetchStrategy(get('/api/device/me', 'navigate'), ORIGIN, listed)).toBe('network');
    expect(fetchStrategy(get('/api', 'cors'), ORIGIN, listed)).toBe('network');
  });

  it('leaves other pages, other methods, other origins and unknown files to the network', () => {
    expect(fetchStrategy(get('/console', 'navigate'), ORIGIN, manifest)).toBe('network');
    expect(fetchStrategy(get('/.well-known/openid-configuration', 'cors'), ORIGIN, manifest)).toBe('network');
    expect(fetchStrategy({ ...get('/index.html'), method: 'POST' }, ORIGIN, manifest)).toBe('network');
    expect(fetchStrategy(get('https://cdn.example.net/assets/main-1a2b.js'), ORIGIN, manifest)).toBe('network');
    expect(fetchStrategy(get('/assets/main-1a2b.js?v=2'), ORIGIN, manifest)).toBe('network');
    expect(fetchStrategy(get('/assets/other.js'), ORIGIN, manifest)).toBe('network');
    expect(fetchStrategy(get('/sw.js'), ORIGIN, { ...manifest, urls: [...manifest.urls, '/sw.js'] })).toBe('network');
  });
});

describe('shell caches', () => {
  it('names the cache after the version', () => {
    expect(shellCacheName('abc123')).toBe('countersign-shell-abc123');
  });

  it('deletes every other version of the shell and nothing else', () => {
    const names = ['countersign-shell-old1', 'countersign-shell-abc123', 'countersign-shell-old2', 'another-app', 'countersign-state-v1'];
    expect(staleCacheNames(names, 'countersign-shell-abc123')).toEqual(['countersign-shell-old1', 'countersign-shell-old2']);
  });
});

describe('readPrecacheManifest', () => {
  it('reads what the build injected', () => {
    expect(readPrecacheManifest(JSON.stringify(manifest))).toEqual(manifest);
  });

  it('falls back to an empty dev manifest before the build injects one', () => {
    expect(readPrecacheManifest()).toEqual({ version: 'dev', urls: [] });
    expect(readPrecacheManifest('{"version":1,"urls":"x"}')).toEqual({ version: 'dev', urls: [] });
  });
});
