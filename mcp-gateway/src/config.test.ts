import { describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientAuthentication, ConfigError, loadConfig, parseConfig } from './config.ts';

const valid = {
  countersign: { issuer: 'http://localhost:8080', client_id: 'cli_1', client_secret: 'secret' },
  login_hint: 'demo',
  upstream: { name: 'memory', command: 'node', args: ['server.js'], env: {} },
  gate: ['delete_entities'],
};

function problems(value: unknown): string[] {
  try {
    parseConfig(value);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('accepted');
}

describe('parseConfig', () => {
  it('accepts a config of only the fixed keys (docs/design.md "The MCP gateway") and fills in the defaults', () => {
    expect(parseConfig(valid)).toEqual({ ...valid, countersign: { ...valid.countersign, token_endpoint_auth_method: 'client_secret_basic' }, allow: [], wait_seconds: 45, result_ttl_seconds: 86_400, redis_prefix: 'cs-mcp:', approval_url: '{issuer}/#/requests/{auth_req_id}' });
    expect(parseConfig({ ...valid, upstream: { name: 'remote', url: 'https://mcp.example/mcp' } }).upstream).toEqual({ name: 'remote', url: 'https://mcp.example/mcp' });
  });

  it('names every problem at once, each with its path', () => {
    expect(problems({ countersign: { issuer: 'ftp://x', client_id: '' }, upstream: { name: 'memory' }, gate: 'delete_entities', wait_seconds: -1, gaet: [] })).toEqual([
      'countersign.issuer: Invalid URL',
      'countersign.client_id: Too small: expected string to have >=1 characters',
      'countersign.client_secret: client_secret_basic needs client_secret',
      'login_hint: Invalid input: expected string, received undefined',
      expect.stringMatching(/^upstream: must be \{name, command, args\?, env\?\} or \{name, url\}: command .*; or url /),
      'gate: Invalid input: expected array, received string',
      'wait_seconds: Too small: expected number to be >=0',
      '(root): Unrecognized key: "gaet"',
    ]);
  });

  it('refuses a tool both gated and allowed, and an upstream with both a command and a url', () => {
    expect(problems({ ...valid, allow: ['delete_entities'] })).toEqual(['allow: delete_entities is also in gate; a tool is either gated or allowed']);
    expect(problems({ ...valid, upstream: { name: 'memory', command: 'node', url: 'http://localhost:1/mcp' } })[0]).toMatch(/^upstream: must be/);
  });

  describe('the client authentication of countersign', () => {
    const jwk = { kty: 'EC', crv: 'P-256', x: 'x', y: 'y', d: 'd' };
    const withClient = (countersign: Record<string, unknown>) => ({ ...valid, countersign: { issuer: 'http://localhost:8080', client_id: 'cli_1', ...countersign } });

    it('takes client_secret_post with a secret, and private_key_jwt with a key and no secret', () => {
      expect(clientAuthentication(parseConfig(withClient({ client_secret: 's', token_endpoint_auth_method: 'client_secret_post' })).countersign)).toEqual({ method: 'client_secret_post', clientSecret: 's' });
      expect(clientAuthentication(parseConfig(withClient({ token_endpoint_auth_method: 'private_key_jwt', private_key_jwk: jwk })).countersign)).toEqual({ method: 'private_key_jwt', privateKey: jwk });
      expect(clientAuthentication(parseConfig(valid).countersign)).toEqual({ method: 'client_secret_basic', clientSecret: 'secret' });
    });

    it('refuses a method without its credential, a secret with a key, both key forms, and an unknown method', () => {
      expect(problems(withClient({ token_endpoint_auth_method: 'client_secret_post' }))).toEqual(['countersign.client_secret: client_secret_post needs client_secret']);
      expect(problems(withClient({ token_endpoint_auth_method: 'private_key_jwt' }))).toEqual(['countersign.private_key_jwk: private_key_jwt needs the private key: private_key_jwk or private_key_file, one of them']);
      expect(problems(withClient({ token_endpoint_auth_method: 'private_key_jwt', private_key_jwk: jwk, private_key_file: 'k.json' }))).toEqual(['countersign.private_key_jwk: private_key_jwt needs the private key: private_key_jwk or private_key_file, one of them']);
      expect(problems(withClient({ token_endpoint_auth_method: 'private_key_jwt', private_key_jwk: jwk, client_secret: 's' }))).toEqual(['countersign.client_secret: private_key_jwt signs with a key: leave the secret out']);
      expect(problems(withClient({ client_secret: 's', private_key_file: 'k.json' }))).toEqual(['countersign.private_key_file: only for token_endpoint_auth_method private_key_jwt']);
      expect(problems(withClient({ client_secret: 's', token_endpoint_auth_method: 'none' }))[0]).toMatch(/^countersign.token_endpoint_auth_method: /);
    });

    it('reads private_key_file next to the config, and names a missing or public key file without its content', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'cs-gw-config-'));
      try {
        const config = join(dir, 'gateway.json');
        await writeFile(config, JSON.stringify(withClient({ token_endpoint_auth_method: 'private_key_jwt', private_key_file: 'key.json' })));
        await expect(loadConfig(config)).rejects.toThrow(/countersign.private_key_file: cannot read .*key.json: ENOENT/);
        await writeFile(join(dir, 'key.json'), JSON.stringify({ kty: 'EC', crv: 'P-256', x: 'secret-x', y: 'y' }));
        const error = await loadConfig(config).catch((caught: Error) => caught);
        expect(String(error)).toMatch(/is not a private JSON Web Key/);
        expect(String(error)).not.toContain('secret-x');
        await writeFile(join(dir, 'key.json'), JSON.stringify(jwk));
        expect((await loadConfig(config)).countersign.private_key_jwk).toEqual(jwk);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  });
});
