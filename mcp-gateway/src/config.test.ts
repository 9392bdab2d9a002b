import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './config.ts';

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
  it('accepts the config of DESIGN.md and fills in the defaults', () => {
    expect(parseConfig(valid)).toEqual({ ...valid, allow: [], wait_seconds: 45, result_ttl_seconds: 86_400, redis_prefix: 'cs-mcp:', approval_url: '{issuer}/#/requests/{auth_req_id}' });
    expect(parseConfig({ ...valid, upstream: { name: 'remote', url: 'https://mcp.example/mcp' } }).upstream).toEqual({ name: 'remote', url: 'https://mcp.example/mcp' });
  });

  it('names every problem at once, each with its path', () => {
    expect(problems({ countersign: { issuer: 'ftp://x', client_id: '' }, upstream: { name: 'memory' }, gate: 'delete_entities', wait_seconds: -1, gaet: [] })).toEqual([
      'countersign.issuer: Invalid URL',
      'countersign.client_id: Too small: expected string to have >=1 characters',
      'countersign.client_secret: Invalid input: expected string, received undefined',
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
});
