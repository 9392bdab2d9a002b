import { ElicitRequestSchema, ElicitationCompleteNotificationSchema, type CallToolResult, type ElicitRequestURLParams } from '@modelcontextprotocol/sdk/types.js';
import { randomBytes } from 'node:crypto';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { clientKey } from './support/client-jwt.ts';
import { exportJWK } from 'jose';
import { createHarness, freePort, UNLIMITED_RATES, type EnrolledUser, type Harness } from './support/harness.ts';
import { connectStdio, createWorkspace, eventually, MEMORY_SERVER, REPO_ROOT, startHttpGateway, type GatewayClient, type HttpGateway, type Workspace } from './support/mcp-gateway.ts';

/**
 * The MCP gateway (docs/mcp-gateway.md), end to end and with nothing faked: the official SDK's
 * `Client` over stdio (the gateway spawned as `pnpm --silent mcp-gateway --config FILE`, as a
 * desktop client runs it) and over Streamable HTTP (`--http PORT`), in front of the real
 * `@modelcontextprotocol/server-memory` from npm, asking a real Countersign server over HTTP, with
 * the person's software passkey deciding through the device API.
 */
/** Whether a process whose command line holds `marker` runs (the upstream spawned with it). */
async function upstreamRunning(marker: string): Promise<boolean> {
  const { stdout } = await promisify(execFile)('ps', ['-eo', 'args']);
  return stdout.split('\n').some((line) => line.includes(marker));
}

describe('MCP gateway', () => {
  let harness: Harness;
  let user: EnrolledUser;
  let client: { client_id: string; client_secret: string };
  let workspace: Workspace;
  const open: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    const port = await freePort();
    harness = await createHarness({ publicUrl: `http://localhost:${port}`, env: { POLL_INTERVAL: '1', ...UNLIMITED_RATES } });
    await harness.listen(port);
    client = await harness.createClient('MCP gateway');
    user = await harness.enrollUser('demo');
    workspace = await createWorkspace(['Alice', 'Bob', 'Carol', 'Dave', 'Erin', 'Frank', 'Grace', 'Heidi', 'Ivan', 'Judy', 'Mallory', 'Niaj', 'Olivia', 'Peggy', 'Trent']);
  });

  afterAll(async () => {
    for (const item of open.reverse()) await item.close().catch(() => undefined);
    await harness?.close();
    await workspace?.remove();
  });

  const track = <T extends { close(): Promise<void> }>(item: T): T => (open.push(item), item);
  /** Kills the child's whole process group (pnpm, tsx, the gateway, its upstream) after the tests, should a test fail before it exits. */
  const killedAfter = <T extends ChildProcess>(child: T): T => {
    track({ close: async () => void (child.exitCode === null && child.signalCode === null && process.kill(-child.pid!, 'SIGKILL')) });
    return child;
  };

  /** The requests the person has seen on the phone: pending ones and decided ones. */
  async function seenRequests(): Promise<string[]> {
    const headers = { cookie: user.cookie, origin: harness.issuer };
    const pending = await harness.call('GET', '/api/device/requests', { headers });
    const history = await harness.call('GET', '/api/device/history', { headers });
    return [...new Set([...pending.body.requests.map((r: { auth_req_id: string }) => r.auth_req_id), ...history.body.entries.map((e: { auth_req_id: string }) => e.auth_req_id)])];
  }

  /** The one request pending on the phone that was not seen before, once it appears. */
  async function newRequest(before: string[]): Promise<string> {
    return eventually(async () => (await seenRequests()).find((id) => !before.includes(id)));
  }

  async function auditTypes(auth_req_id: string): Promise<string[]> {
    const audit = await harness.admin('GET', `/audit?auth_req_id=${encodeURIComponent(auth_req_id)}`);
    return audit.body.events.map((event: { type: string }) => event.type);
  }

  const deleteEntities = (gateway: GatewayClient | { client: GatewayClient['client'] }, names: string[]) => gateway.client.callTool({ name: 'delete_entities', arguments: { entityNames: names } }) as Promise<CallToolResult>;

  describe('as a process', () => {
    it('writes nothing but MCP to stdout, and exits with its upstream when stdin closes', async () => {
      const marker = `--cs-test-${randomBytes(4).toString('hex')}`;
      const config = await workspace.config('process', client, harness, { upstream: { name: 'memory', command: process.execPath, args: [MEMORY_SERVER, marker], env: { MEMORY_FILE_PATH: workspace.memoryFile } } });
      const child = killedAfter(spawn('pnpm', ['--silent', 'mcp-gateway', '--config', config], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'], detached: true }));
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
      const path = join(workspace.dir, 'bad.json');
      await writeFile(path, JSON.stringify({ countersign: { issuer: 'not a url' }, upstream: { name: 'memory' }, allow: 'all' }));
      const child = killedAfter(spawn('pnpm', ['--silent', 'mcp-gateway', '--config', path], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true }));
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
      const registered = await harness.admin('POST', '/clients', { name: 'MCP gateway (key)', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [key.publicJwk] } });
      expect(registered.status).toBe(201);
      await writeFile(join(workspace.dir, 'gateway-key.json'), JSON.stringify({ ...(await exportJWK(key.privateKey)), kid: key.publicJwk.kid }));
      const config = await workspace.config('key', client, harness, {
        countersign: { issuer: harness.issuer, client_id: registered.body.client_id, token_endpoint_auth_method: 'private_key_jwt', private_key_file: 'gateway-key.json' },
        wait_seconds: 15,
      });
      const gateway = track(await connectStdio(config));
      const before = await seenRequests();
      const call = deleteEntities(gateway, ['Trent']);
      const auth_req_id = await newRequest(before);
      expect((await harness.admin('GET', `/requests/${auth_req_id}`)).body.request.client_id).toBe(registered.body.client_id);
      expect(await workspace.entities()).toContain('Trent');
      await harness.decide(user, auth_req_id, 'approve');
      expect((await call).structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      expect(await workspace.entities()).not.toContain('Trent');
      expect((await auditTypes(auth_req_id)).filter((type) => type === 'redeemed')).toHaveLength(1);
      expect((await harness.admin('GET', `/requests/${auth_req_id}`)).body.request.outcome).toMatchObject({ status: 'succeeded' });
    });
  });

  describe('over stdio, a client that waits', () => {
    let gateway: GatewayClient;
    beforeAll(async () => {
      gateway = track(await connectStdio(await workspace.config('waits', client, harness, { wait_seconds: 15 })));
    });

    it('lists the upstream tools with their schemas and annotations, and marks the gated ones', async () => {
      const { tools } = await gateway.client.listTools();
      const byName = new Map(tools.map((tool) => [tool.name, tool]));
      expect([...byName.keys()].sort()).toEqual(['add_observations', 'create_entities', 'create_relations', 'delete_entities', 'delete_observations', 'delete_relations', 'open_nodes', 'read_graph', 'search_nodes']);
      const del = byName.get('delete_entities')!;
      expect(del.annotations).toMatchObject({ destructiveHint: true, readOnlyHint: false });
      expect(del.inputSchema.properties).toHaveProperty('entityNames');
      expect(del.description).toMatch(/^Delete multiple entities .*\n\nCountersign: .*on their phone/s);
      expect(byName.get('read_graph')!.description).not.toMatch(/Countersign/);
      expect(byName.get('create_entities')!.description).not.toMatch(/Countersign/);
    });

    it('passes read_graph straight through, asking nobody', async () => {
      const before = await seenRequests();
      const result = (await gateway.client.callTool({ name: 'read_graph', arguments: {} })) as CallToolResult;
      expect(result.isError).toBeFalsy();
      expect((result.structuredContent as { entities: { name: string }[] }).entities.map((e) => e.name)).toContain('Alice');
      expect(await seenRequests()).toEqual(before);
    });

    it('runs a gated call only after the approval, once, and answers the upstream’s own result', async () => {
      const before = await seenRequests();
      const call = deleteEntities(gateway, ['Alice']);
      const auth_req_id = await newRequest(before);
      // Proposed and pushed, not run: the memory file still holds Alice.
      expect(await workspace.entities()).toContain('Alice');
      const view = (await harness.admin('GET', `/requests/${auth_req_id}`)).body.request;
      expect(view.authorization_details).toEqual([expect.objectContaining({ type: 'tool_call', server: 'memory', tool: 'delete_entities', arguments: { entityNames: ['Alice'] } })]);
      expect(view.binding_message).toMatch(/^memory: delete_entities #[A-Za-z0-9_-]{4}$/);

      expect((await harness.decide(user, auth_req_id, 'approve')).status).toBe(200);
      const result = await call;
      expect(result).toMatchObject({ content: [{ type: 'text', text: 'Entities deleted successfully' }], structuredContent: { success: true, message: 'Entities deleted successfully' } });
      expect(result.isError).toBeFalsy();
      expect(await workspace.entities()).not.toContain('Alice');
      const types = await auditTypes(auth_req_id);
      expect(types.filter((type) => type === 'redeemed')).toHaveLength(1);
      expect((await harness.admin('GET', `/requests/${auth_req_id}`)).body.request.outcome).toMatchObject({ status: 'succeeded' });

      // The same call again is answered with the recorded result: not asked, not run, not redeemed again.
      expect(await deleteEntities(gateway, ['Alice'])).toEqual(result);
      expect((await seenRequests()).filter((id) => !before.includes(id))).toEqual([auth_req_id]);
      expect((await auditTypes(auth_req_id)).filter((type) => type === 'redeemed')).toHaveLength(1);
    });

    it('asks again for a call with changed arguments after an approval', async () => {
      const before = await seenRequests();
      const first = deleteEntities(gateway, ['Bob']);
      const approved = await newRequest(before);
      await harness.decide(user, approved, 'approve');
      await first;
      const second = deleteEntities(gateway, ['Bob', 'Carol']);
      const other = await newRequest([...before, approved]);
      expect(other).not.toBe(approved);
      expect(await workspace.entities()).toContain('Carol');
      await harness.decide(user, other, 'approve');
      expect((await second).structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      expect(await workspace.entities()).not.toContain('Carol');
    });

    it('answers denied when the person says no, and deletes nothing', async () => {
      const before = await seenRequests();
      const call = deleteEntities(gateway, ['Dave']);
      const auth_req_id = await newRequest(before);
      await harness.decide(user, auth_req_id, 'deny');
      const result = await call;
      expect(result).toMatchObject({ isError: true, structuredContent: { status: 'denied', auth_req_id } });
      expect(await workspace.entities()).toContain('Dave');
      expect(await auditTypes(auth_req_id)).not.toContain('redeemed');
      // The same call again is denied at once: the person said no to exactly this, and is not asked again.
      expect((await deleteEntities(gateway, ['Dave'])).structuredContent).toEqual({ status: 'denied', auth_req_id });
      expect((await seenRequests()).filter((id) => !before.includes(id))).toEqual([auth_req_id]);
    });

    it('answers expired when nobody decides in time, and deletes nothing', async () => {
      const before = await seenRequests();
      const call = deleteEntities(gateway, ['Erin']);
      const auth_req_id = await newRequest(before);
      // The server's clock, not the test's time: the request's 300 s pass at once.
      harness.clock.advance(601);
      const result = await call;
      expect(result).toMatchObject({ isError: true, structuredContent: { status: 'expired', auth_req_id } });
      expect(await workspace.entities()).toContain('Erin');

      // The same call again is a new request (the dead one is not handed back), and runs once approved.
      const again = deleteEntities(gateway, ['Erin']);
      const fresh = await newRequest([...before, auth_req_id]);
      await harness.decide(user, fresh, 'approve');
      expect((await again).structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      expect(await workspace.entities()).not.toContain('Erin');
    });

    it('refuses arguments over 8 KB as JCS before anyone is asked, and calls nothing', async () => {
      const before = await seenRequests();
      const result = await deleteEntities(gateway, ['Olivia', 'x'.repeat(8 * 1024)]);
      expect(result).toMatchObject({ isError: true, structuredContent: { status: 'refused', error: 'invalid_authorization_details' } });
      expect(await seenRequests()).toEqual(before);
      expect(await workspace.entities()).toContain('Olivia');
    });

    it('reports the upstream’s error as a failed outcome and answers the upstream’s own error result', async () => {
      const before = await seenRequests();
      // Not an array: the upstream refuses its own input, after the approval.
      const call = gateway.client.callTool({ name: 'delete_entities', arguments: { entityNames: 'Olivia' } }) as Promise<CallToolResult>;
      const auth_req_id = await newRequest(before);
      await harness.decide(user, auth_req_id, 'approve');
      const result = await call;
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(result.content).toEqual([{ type: 'text', text: expect.stringMatching(/Input validation error/) }]);
      const outcome = await eventually(async () => (await harness.admin('GET', `/requests/${auth_req_id}`)).body.request.outcome as { status: string; reason?: string } | undefined);
      expect(outcome).toMatchObject({ status: 'failed', reason: expect.stringMatching(/^MCP error -32602: Input validation error/) });
      expect(await workspace.entities()).toContain('Olivia');
    });

    it('gives two concurrent calls with different arguments two requests, each released by its own approval', async () => {
      const before = await seenRequests();
      const frank = deleteEntities(gateway, ['Frank']);
      const grace = deleteEntities(gateway, ['Grace']);
      const [one, two] = await eventually(async () => {
        const fresh = (await seenRequests()).filter((id) => !before.includes(id));
        return fresh.length === 2 ? fresh : undefined;
      });
      const details = async (id: string) => (await harness.admin('GET', `/requests/${id}`)).body.request.authorization_details[0].arguments.entityNames[0] as string;
      const frankId = (await details(one!)) === 'Frank' ? one! : two!;
      const graceId = frankId === one ? two! : one!;
      await harness.decide(user, frankId, 'approve');
      expect((await frank).structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      expect(await workspace.entities()).toContain('Grace');
      await harness.decide(user, graceId, 'deny');
      expect((await grace).structuredContent).toMatchObject({ status: 'denied' });
      expect(await workspace.entities()).toContain('Grace');
    });
  });

  describe('over stdio, a gateway that waits 1 s', () => {
    let gateway: GatewayClient;
    beforeAll(async () => {
      gateway = track(await connectStdio(await workspace.config('quick', client, harness, { wait_seconds: 1 })));
    });

    it('answers approval_pending to a client without elicitation, and the same call again resumes the same approval: one request on the phone', async () => {
      const before = await seenRequests();
      const pending = await deleteEntities(gateway, ['Heidi']);
      expect(pending).toMatchObject({ isError: true, structuredContent: { status: 'approval_pending', binding_message: expect.stringMatching(/^memory: delete_entities #/) } });
      const { auth_req_id } = pending.structuredContent as { auth_req_id: string };
      expect(await workspace.entities()).toContain('Heidi');

      // Twice at once: one approval for both, and the second's time queued behind the first counts
      // against its wait (about 1 s for both, not 2: a client's timeout does not restart in the queue).
      const started = Date.now();
      const twice = await Promise.all([deleteEntities(gateway, ['Heidi']), deleteEntities(gateway, ['Heidi'])]);
      // Each wait sleeps to its deadline: queued and waited in full, the pair takes 2 s or more.
      expect(Date.now() - started).toBeLessThan(1950);
      expect(twice.map((answer) => answer.structuredContent)).toEqual([expect.objectContaining({ status: 'approval_pending', auth_req_id }), expect.objectContaining({ status: 'approval_pending', auth_req_id })]);
      await harness.decide(user, auth_req_id, 'approve');
      const result = await deleteEntities(gateway, ['Heidi']);
      expect(result.structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      expect(await workspace.entities()).not.toContain('Heidi');
      expect((await seenRequests()).filter((id) => !before.includes(id))).toEqual([auth_req_id]);
    });

    it('gives a client with Tasks a task that stays working until the approval, then completes with the upstream’s result', async () => {
      const { tools } = await gateway.client.listTools();
      expect(tools.find((tool) => tool.name === 'delete_entities')!.execution).toEqual({ taskSupport: 'optional' });
      const before = await seenRequests();
      const messages: { type: string; task?: { taskId: string; status: string }; result?: CallToolResult }[] = [];
      const stream = (async () => {
        for await (const message of gateway.client.experimental.tasks.callToolStream({ name: 'delete_entities', arguments: { entityNames: ['Mallory'] } }, undefined, { task: { ttl: 60_000 } })) {
          messages.push(message as (typeof messages)[number]);
        }
      })();
      const auth_req_id = await newRequest(before);
      const created = await eventually(async () => messages.find((message) => message.type === 'taskCreated')?.task);
      // Longer than wait_seconds: a task is not cut short by it.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect((await gateway.client.experimental.tasks.getTask(created.taskId)).status).toBe('working');
      expect(await workspace.entities()).toContain('Mallory');
      await harness.decide(user, auth_req_id, 'approve');
      await stream;
      expect(messages.at(-1)).toMatchObject({ type: 'result', result: { structuredContent: { success: true, message: 'Entities deleted successfully' } } });
      expect((await gateway.client.experimental.tasks.getTask(created.taskId)).status).toBe('completed');
      expect(await workspace.entities()).not.toContain('Mallory');
    });
  });

  describe('over stdio, a gateway killed while a call waits', () => {
    it('resumes the pending approval after a restart (Redis) and runs the call once', async () => {
      const env = { REDIS_URL: inject('redisUrl') };
      const config = await workspace.config('restart', client, harness, { wait_seconds: 15, redis_prefix: `test:${randomBytes(6).toString('hex')}:` });
      const first = await connectStdio(config, { via: 'node', env });
      const before = await seenRequests();
      const waiting = deleteEntities(first, ['Ivan']).catch((error: Error) => error);
      const auth_req_id = await newRequest(before);
      process.kill(first.pid!, 'SIGKILL');
      expect(await waiting).toBeInstanceOf(Error);
      await first.close();

      await harness.decide(user, auth_req_id, 'approve');
      expect(await workspace.entities()).toContain('Ivan');
      const second = track(await connectStdio(config, { via: 'node', env }));
      const result = await deleteEntities(second, ['Ivan']);
      expect(result.structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      expect(await workspace.entities()).not.toContain('Ivan');
      expect((await seenRequests()).filter((id) => !before.includes(id))).toEqual([auth_req_id]);
      await second.close();

      // A third process answers the executed call from Redis: the recorded result, not a second run.
      const third = track(await connectStdio(config, { via: 'node', env }));
      expect(await deleteEntities(third, ['Ivan'])).toEqual(result);
      expect((await auditTypes(auth_req_id)).filter((type) => type === 'redeemed')).toHaveLength(1);
    });
  });

  describe('over stdio, a client with URL elicitation', () => {
    it('is sent an elicitation/create of mode url linking to the request in the approver app, then elicitation/complete', async () => {
      const gateway = track(await connectStdio(await workspace.config('elicit', client, harness, { wait_seconds: 15 }), { capabilities: { capabilities: { elicitation: { url: {} } } } }));
      const elicitations: ElicitRequestURLParams[] = [];
      const completed: string[] = [];
      gateway.client.setRequestHandler(ElicitRequestSchema, async (request) => {
        elicitations.push(request.params as ElicitRequestURLParams);
        return { action: 'accept' };
      });
      gateway.client.setNotificationHandler(ElicitationCompleteNotificationSchema, async (notification) => void completed.push(notification.params.elicitationId));

      const before = await seenRequests();
      const call = deleteEntities(gateway, ['Judy']);
      const auth_req_id = await newRequest(before);
      const elicitation = await eventually(async () => elicitations[0]);
      expect(elicitation).toMatchObject({ mode: 'url', url: `${harness.issuer}/#/requests/${auth_req_id}`, message: expect.stringContaining('memory: delete_entities') });
      expect(completed).toEqual([]);
      await harness.decide(user, auth_req_id, 'approve');
      expect((await call).structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      expect(completed).toEqual([elicitation.elicitationId]);
    });

    it('completes the elicitation of an earlier call that gave up waiting, once a retry sees the decision', async () => {
      const gateway = track(await connectStdio(await workspace.config('elicit-quick', client, harness, { wait_seconds: 1 }), { capabilities: { capabilities: { elicitation: { url: {} } } } }));
      const elicitations: ElicitRequestURLParams[] = [];
      const completed: string[] = [];
      gateway.client.setRequestHandler(ElicitRequestSchema, async (request) => (elicitations.push(request.params as ElicitRequestURLParams), { action: 'accept' }));
      gateway.client.setNotificationHandler(ElicitationCompleteNotificationSchema, async (notification) => void completed.push(notification.params.elicitationId));

      const pending = await deleteEntities(gateway, ['Niaj']);
      const { auth_req_id } = pending.structuredContent as { auth_req_id: string };
      expect(pending.structuredContent).toMatchObject({ status: 'approval_pending', approval_url: `${harness.issuer}/#/requests/${auth_req_id}` });
      expect(elicitations.map((e) => e.url)).toEqual([`${harness.issuer}/#/requests/${auth_req_id}`]);
      expect(completed).toEqual([]);
      await harness.decide(user, auth_req_id, 'approve');
      expect((await deleteEntities(gateway, ['Niaj'])).structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      // The retry found the decision on its first poll: nothing new to open, the old one completed.
      expect(elicitations).toHaveLength(1);
      expect(completed).toEqual([elicitations[0]!.elicitationId]);
    });
  });

  describe('over Streamable HTTP', () => {
    let gateway: HttpGateway;
    beforeAll(async () => {
      gateway = await startHttpGateway(await workspace.config('http', client, harness, { wait_seconds: 15 }), await freePort());
      track({ close: () => gateway.stop() });
    });

    it('passes read_graph through and runs a gated call once after the approval', async () => {
      const mcp = track(await gateway.connect());
      const read = (await mcp.callTool({ name: 'read_graph', arguments: {} })) as CallToolResult;
      expect((read.structuredContent as { entities: { name: string }[] }).entities.map((e) => e.name)).toContain('Grace');

      const before = await seenRequests();
      const call = mcp.callTool({ name: 'delete_entities', arguments: { entityNames: ['Grace'] } }) as Promise<CallToolResult>;
      const auth_req_id = await newRequest(before);
      expect(await workspace.entities()).toContain('Grace');
      await harness.decide(user, auth_req_id, 'approve');
      expect((await call).structuredContent).toEqual({ success: true, message: 'Entities deleted successfully' });
      expect(await workspace.entities()).not.toContain('Grace');
    });

    it('stands in front of a Streamable HTTP upstream too: tools listed, read_graph through', async () => {
      // The upstream here is the HTTP gateway above (itself in front of the memory server): what
      // matters is the {name, url} upstream. Its gated tools stay gated by it, and say so.
      const outer = track(await connectStdio(await workspace.config('remote', client, harness, { upstream: { name: 'remote', url: gateway.url.href } })));
      const { tools } = await outer.client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('read_graph');
      expect(tools.find((tool) => tool.name === 'delete_entities')!.description).toMatch(/on their phone/);
      const read = (await outer.client.callTool({ name: 'read_graph', arguments: {} })) as CallToolResult;
      expect((read.structuredContent as { entities: { name: string }[] }).entities.map((e) => e.name)).toContain('Dave');
    });

    it('answers outside localhost with 403, and an unknown session with 404', async () => {
      // A DNS-rebound page reaches 127.0.0.1 with its own name in Host (fetch cannot set Host).
      const wrongHost = await new Promise<number>((resolve, reject) => {
        const sent = request(gateway.url, { method: 'POST', headers: { host: 'evil.example', 'content-type': 'application/json' } }, (res) => resolve(res.statusCode!));
        sent.once('error', reject);
        sent.end('{}');
      });
      expect(wrongHost).toBe(403);
      const unknown = await fetch(gateway.url, { method: 'POST', headers: { 'mcp-session-id': 'nope', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
      expect(unknown.status).toBe(404);
    });
  });
  describe('over stdio, a /redeem whose answer is lost', () => {
    it('runs the call once when the same call comes again: the retry finds its own redemption and claims it', async () => {
      // Between the gateway and Countersign: the first POST /redeem reaches the server, is
      // redeemed, and its answer never comes back (the connection is cut).
      let cut = 0;
      const proxy = createServer((incoming, answer) => {
        const target = new URL(incoming.url ?? '/', harness.issuer);
        const forward = request(target, { method: incoming.method, headers: incoming.headers }, (response) => {
          if (incoming.method === 'POST' && target.pathname === '/redeem' && cut === 0) {
            cut += 1;
            response.resume();
            response.on('end', () => answer.socket?.destroy());
            return;
          }
          answer.writeHead(response.statusCode ?? 502, response.headers);
          response.pipe(answer);
        });
        incoming.pipe(forward);
      });
      const proxyPort = await freePort();
      await new Promise<void>((resolve) => proxy.listen(proxyPort, '127.0.0.1', resolve));
      track({ close: () => new Promise<void>((resolve) => proxy.close(() => resolve())) });
      const config = await workspace.config('lost-redeem', client, harness, {
        wait_seconds: 15,
        countersign: { issuer: `http://127.0.0.1:${proxyPort}`, client_id: client.client_id, client_secret: client.client_secret },
      });
      const gateway = track(await connectStdio(config));

      const before = await seenRequests();
      const first = deleteEntities(gateway, ['Peggy']);
      const auth_req_id = await newRequest(before);
      await harness.decide(user, auth_req_id, 'approve');
      // Redeemed on the server; the gateway heard nothing, so it did not call the upstream.
      expect(await first).toMatchObject({ isError: true, structuredContent: { status: 'refused', auth_req_id } });
      expect(cut).toBe(1);
      expect((await harness.admin('GET', `/requests/${auth_req_id}`)).body.request.state).toBe('redeemed');
      expect(await workspace.entities()).toContain('Peggy');

      // The same call again: `already_redeemed` names a redemption with no outcome while this call's
      // record still holds the token; the gateway claims it and runs the upstream, once.
      const second = await deleteEntities(gateway, ['Peggy']);
      expect(second).toMatchObject({ structuredContent: { success: true, message: 'Entities deleted successfully' } });
      expect(await workspace.entities()).not.toContain('Peggy');
      expect((await auditTypes(auth_req_id)).filter((type) => type === 'redeemed')).toHaveLength(1);
      expect((await harness.admin('GET', `/requests/${auth_req_id}`)).body.request.outcome).toMatchObject({ status: 'succeeded' });
      // And never again: the third call is answered from the record.
      expect(await deleteEntities(gateway, ['Peggy'])).toEqual(second);
      expect((await seenRequests()).filter((id) => !before.includes(id))).toEqual([auth_req_id]);
    });
  });
  describe('over stdio, a gateway whose Redis is down', () => {
    it('answers a gated call refused temporarily_unavailable, asks nobody and runs nothing; read_graph still passes', async () => {
      const deadPort = await freePort();
      const gateway = track(await connectStdio(await workspace.config('redis-down', client, harness, { wait_seconds: 5 }), { env: { REDIS_URL: `redis://127.0.0.1:${deadPort}` } }));
      const before = await seenRequests();
      const result = await deleteEntities(gateway, ['Olivia']);
      expect(result).toMatchObject({ isError: true, structuredContent: { status: 'refused', error: 'temporarily_unavailable' } });
      expect(await workspace.entities()).toContain('Olivia');
      expect(await seenRequests()).toEqual(before);
      expect(((await gateway.client.callTool({ name: 'read_graph', arguments: {} })) as CallToolResult).isError).toBeFalsy();
    });
  });
});
