import { describe, expect, it } from 'vitest';
import { parseOptions } from './parse-options.ts';
import { runCli } from './run-cli.ts';

const options = { 'auth-req-id': { type: 'string' }, tenant: { type: 'string' }, 'until-settled': { type: 'boolean' } } as const;

describe('parseOptions', () => {
  it('takes a value that starts with "-" after a string option', () => {
    const { values } = parseOptions({ args: ['--auth-req-id', '-Xy3_abc', '--until-settled'], options, strict: true });
    expect(values).toEqual({ 'auth-req-id': '-Xy3_abc', 'until-settled': true });
  });

  it('takes a value that starts with "--" when it is not one of the options', () => {
    const { values } = parseOptions({ args: ['--auth-req-id', '--abc'], options, strict: true });
    expect(values['auth-req-id']).toBe('--abc');
  });

  it('still refuses a missing value when what follows is another option', () => {
    expect(() => parseOptions({ args: ['--tenant', '--until-settled'], options, strict: true })).toThrow(expect.objectContaining({ code: 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' }));
    expect(() => parseOptions({ args: ['--tenant', '--auth-req-id=x'], options, strict: true })).toThrow(expect.objectContaining({ code: 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' }));
  });

  it('leaves plain values, --name=value and everything after "--" as parseArgs reads them', () => {
    const { values, positionals } = parseOptions({ args: ['--tenant=acme', '--auth-req-id', 'abc', '--', '--tenant', '-x'], options, strict: true, allowPositionals: true });
    expect(values).toEqual({ tenant: 'acme', 'auth-req-id': 'abc' });
    expect(positionals).toEqual(['--tenant', '-x']);
  });

  it('with idPositionals, reads an argument that starts with a single "-" as a positional', () => {
    const { values, positionals } = parseOptions({ args: ['-Xy3_abc', '--until-settled', '--tenant', '-t'], options, strict: true, allowPositionals: true }, { idPositionals: true });
    expect(values).toEqual({ 'until-settled': true, tenant: '-t' });
    expect(positionals).toEqual(['-Xy3_abc']);
    expect(() => parseOptions({ args: ['-Xy3_abc'], options, strict: true, allowPositionals: true })).toThrow(expect.objectContaining({ code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' }));
  });

  it('does not treat a boolean option as taking a value', () => {
    expect(() => parseOptions({ args: ['--until-settled', '-x'], options, strict: true })).toThrow(expect.objectContaining({ code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' }));
  });
});

describe('countersign-admin with an auth_req_id that starts with "-"', () => {
  it.each([false, true])('follows that request instead of answering with usage help (the id as a positional: %s)', async (positional) => {
    const id = '-Q1bVw2kz_7hY3xP0aLmN4oRtSuV';
    const paths: string[] = [];
    const fetch: typeof globalThis.fetch = async (input) => {
      const url = new URL(String(input));
      paths.push(url.pathname + url.search);
      const body = url.pathname.startsWith('/api/admin/requests/')
        ? { request: { auth_req_id: id, state: 'denied', outcome: null } }
        : {
            events: [
              { type: 'proposed', at: '2026-11-29T20:00:00.000Z' },
              { type: 'denied', at: '2026-11-29T20:00:05.000Z' },
            ],
          };
      return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['audit', 'follow', ...(positional ? [id] : ['--auth-req-id', id]), '--until-settled'], {
      env: { ADMIN_TOKEN: 'admin-token-for-tests', COUNTERSIGN_URL: 'http://127.0.0.1:9' },
      output: { out: (line) => out.push(line), err: (line) => err.push(line), tty: false },
      fetch,
      sleep: async () => {},
    });
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(paths[0]).toBe(`/api/admin/requests/${id}`);
    expect(paths[1]).toBe(`/api/admin/audit?auth_req_id=${id}`);
    expect(out.join('\n')).toMatch(/proposed[\s\S]*denied/);
  });
});
