import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../command.ts';
import { enroll, phoneCanOpen } from './enroll.ts';

/** `enroll` with an admin API that answers `url` as the new enrollment link; what it wrote. */
async function enrollAt(url: string, args: string[] = []) {
  const out: string[] = [];
  const err: string[] = [];
  const ctx = {
    api: { call: async () => ({ status: 201, body: { enrollment_code: 'c0de', enrollment_url: url, expires_in: 900 } }) },
    output: { tty: false, out: (line: string) => void out.push(line), err: (line: string) => void err.push(line) },
    json: false,
    sleep: async () => {},
    signal: new AbortController().signal,
  } as unknown as CommandContext;
  return { code: await enroll(['alice', ...args], ctx), out, err: err.join('\n') };
}

describe('enroll', () => {
  it('prints a QR code of a link a phone can open', async () => {
    const run = await enrollAt('https://approve.example.com/#/enroll/c0de');
    expect(run.code).toBe(0);
    expect(run.out).toEqual(['https://approve.example.com/#/enroll/c0de']);
    expect(run.err.split('\n').filter((line) => /^[█▀▄ ]{20,}$/u.test(line)).length).toBeGreaterThanOrEqual(11);
    expect(run.err).toContain('Open the link on the phone (or scan the code). It works once and expires in 15m 00s.');
  });

  it.each(['http://localhost:8080', 'http://LOCALHOST:8080', 'http://approve.localhost', 'http://127.0.0.1:8080', 'http://[::1]:8080'])('prints no QR code for %s, and says why', async (origin) => {
    const run = await enrollAt(`${origin}/#/enroll/c0de`);
    expect(run.out).toEqual([`${origin}/#/enroll/c0de`]);
    expect(run.err).not.toMatch(/[█▀▄]/u);
    expect(run.err).toMatch(/^No QR code: this link is on .+, which a phone cannot open/);
  });

  it('tells a link of this machine from one of the network', () => {
    expect(['https://192-168-1-20.sslip.io:8443', 'https://approve.example.com', 'http://10.0.0.5:8080'].map((url) => phoneCanOpen(url))).toEqual([true, true, true]);
    expect(['http://localhost', 'http://127.1.2.3:80'].map((url) => phoneCanOpen(url))).toEqual([false, false]);
  });
});
