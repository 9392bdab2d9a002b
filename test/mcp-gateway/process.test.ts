import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { clientKey } from '../support/client-jwt.ts';
import { exportJWK } from 'jose';
import { connectStdio, eventually, MEMORY_SERVER, REPO_ROOT } from '../support/mcp-gateway.ts';
import { upstreamRunning, useGatewayScene } from './support.ts';

// The gateway as a process (stdout holds only MCP, a bad config stops it), and a private_key_jwt client.

describe('MCP gateway', () => {
  const gw = useGatewayScene();

  describe('as a process', () => {
    it('writes nothing but MCP to stdout, and exits with its upstream when stdin closes', async () => {
      const marker = `--cs-test-${randomBytes(4).toString('hex')}`;
      const config = await gw.workspace.config('process', gw.client, gw.harness, { upstream: { name: 'memory', command: process.execPath, args: [MEMORY_SERVER, marker], env: { MEMORY_FILE_PATH: gw.workspace.memoryFile } } });
      const child = gw.killedAfter(spawn('pnpm', ['--silent', 'mcp-gateway', '--config', config], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'], detached: true }));
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
      send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      await eventually(async () => (stdout.includes('"id":1') ? true : undefined));
      send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      await eventually(async () => (stdout.includes('"id":2') ? true : undefined));
      expect(await upstreamRunning(marker)).toBe(true);

      child.stdin.end();
      expect(await exited).toBe(0);
      const lines = stdout.split('\n').filter(Boolean);
      expect(lines.map((line) => JSON.parse(line).jsonrpc)).toEqual(lines.map(() => '2.0'));
      expect(JSON.parse(lines[0]!).result).toMatchObject({ protocolVersion: '2025-11-25', serverInfo: { name: 'countersign-mcp-gateway' }, capabilities: { tools: { listChanged: true } } });
      expect(stderr).toMatch(/REDIS_URL is not set/);
      await eventually(async () => ((await upstreamRunning(marker)) ? undefined : true), 5000);
    });

    it('stops on a bad config, naming every problem, with nothing on stdout', async () => {
      const path = join(gw.workspace.dir, 'bad.json');
      await writeFile(path, JSON.stringify({ countersign: { issuer: 'not a url' }, upstream: { name: 'memory' }, allow: 'all' }));
      const child = gw.killedAfter(spawn('pnpm', ['--silent', 'mcp-gateway', '--config', path], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true }));
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      expect(code).not.toBe(0);
      expect(stdout).toBe('');
      for (const path of ['countersign.issuer', 'countersign.client_id', 'countersign.client_secret', 'login_hint', 'upstream', 'allow']) expect(stderr).toContain(`  - ${path}: `);
    });
  });

  describe('with a private_key_jwt client', () => {
    it('authenticates every call with a fresh assertion signed by the key in private_key_file, and runs the gated call once after the approval', async () => {
      const key = await clientKey('ES256');
      const registered = await gw.harness.admin('POST', '/clients', { name: 'MCP gateway (key)', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.publicJwk] } });
      expect(registered.status).toBe(201);
      await writeFile(join(gw.workspace.dir, 'gateway-key.json'), JSON.stringify({ ...(await exportJWK(key.privateKey)), kid: key.publicJwk.kid }));
      const config = await gw.workspace.config('key', gw.client, gw.harness, {
        countersign: { issuer: gw.harness.issuer, client_id: registered.body.client_id, token_endpoint_auth_method: 'private_key_jwt', private_key_file: 'gateway-key.json' },
        wait_seconds: 15,
      });
      const gateway = gw.track(await connectStdio(config));
      const before = await gw.seenRequests();
      const call = gw.deleteEntities(gateway, ['Trent']);
      const auth_req_id = await gw.newRequest(before);
      expect((await gw.harness.admin('GET', `/requests/${auth_req_id}`)).body.request.client_id).toBe(registered.body.client_id);
      expect(await gw.workspace.entities()).toContain('Trent');
      await gw.harness.decide(gw.user, auth_req_id, 'approve');
      expect((await call).structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      expect(await gw.workspace.entities()).not.toContain('Trent');
      expect((await gw.auditTypes(auth_req_id)).filter((type) => type === 'redeemed')).toHaveLength(1);
      expect((await gw.harness.admin('GET', `/requests/${auth_req_id}`)).body.request.outcome).toMatchObject({ status: 'succeeded' });
    });
  });
});
