import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll } from 'vitest';
import { createHarness, freePort, UNLIMITED_RATES, type EnrolledUser, type Harness } from '../support/harness.ts';
import { connectStdio, createWorkspace, eventually, type GatewayClient, type Workspace } from '../support/mcp-gateway.ts';

/**
 * What the test/mcp-gateway/ files share. The MCP gateway (docs/mcp-gateway.md), end to end and
 * with nothing faked: the official SDK's `Client` over stdio (the gateway spawned as
 * `pnpm --silent mcp-gateway --config FILE`, as a desktop client runs it) and over Streamable HTTP
 * (`--http PORT`), in front of the real `@modelcontextprotocol/server-memory` from npm, asking a
 * real Countersign server over HTTP, with the person's software passkey deciding through the device API.
 */

/** Whether a process whose command line holds `marker` runs (the upstream spawned with it). */
export async function upstreamRunning(marker: string): Promise<boolean> {
  const { stdout } = await promisify(execFile)('ps', ['-eo', 'args']);
  return stdout.split('\n').some((line) => line.includes(marker));
}

/** One file's server, person, client and memory workspace, and what the tests do with them. */
export interface GatewayScene {
  harness: Harness;
  user: EnrolledUser;
  client: { client_id: string; client_secret: string };
  workspace: Workspace;
  /** Closes `item` after the file's tests, in reverse order. */
  track<T extends { close(): Promise<void> }>(item: T): T;
  /** Kills the child's whole process group (pnpm, tsx, the gateway, its upstream) after the tests, should a test fail before it exits. */
  killedAfter<T extends ChildProcess>(child: T): T;
  /** The requests the person has seen on the phone: pending ones and decided ones. */
  seenRequests(): Promise<string[]>;
  /** The one request pending on the phone that was not seen before, once it appears. */
  newRequest(before: string[]): Promise<string>;
  /** The types of the audit events of one request. */
  auditTypes(auth_req_id: string): Promise<string[]>;
  /** Calls the gated `delete_entities` tool of the memory server through the gateway. */
  deleteEntities(gateway: GatewayClient | { client: GatewayClient['client'] }, names: string[]): Promise<CallToolResult>;
}

/**
 * Starts a {@link GatewayScene} before the calling file's tests (a server listening on a port, a
 * person enrolled as `demo`, a memory file of 15 people) and closes all of it after.
 */
export function useGatewayScene(): GatewayScene {
  const open: { close(): Promise<void> }[] = [];
  const gw = {
    track: <T extends { close(): Promise<void> }>(item: T): T => (open.push(item), item),
    killedAfter: <T extends ChildProcess>(child: T): T => {
      gw.track({ close: async () => void (child.exitCode === null && child.signalCode === null && process.kill(-child.pid!, 'SIGKILL')) });
      return child;
    },
    async seenRequests(): Promise<string[]> {
      const headers = { cookie: gw.user.cookie, origin: gw.harness.issuer };
      const pending = await gw.harness.call('GET', '/api/device/requests', { headers });
      const history = await gw.harness.call('GET', '/api/device/history', { headers });
      return [...new Set([...pending.body.requests.map((r: { auth_req_id: string }) => r.auth_req_id), ...history.body.entries.map((e: { auth_req_id: string }) => e.auth_req_id)])];
    },
    async newRequest(before: string[]): Promise<string> {
      return eventually(async () => (await gw.seenRequests()).find((id) => !before.includes(id)));
    },
    async auditTypes(auth_req_id: string): Promise<string[]> {
      const audit = await gw.harness.admin('GET', `/audit?auth_req_id=${encodeURIComponent(auth_req_id)}`);
      return audit.body.events.map((event: { type: string }) => event.type);
    },
    deleteEntities: (gateway: GatewayClient | { client: GatewayClient['client'] }, names: string[]) => gateway.client.callTool({ name: 'delete_entities', arguments: { entityNames: names } }) as Promise<CallToolResult>,
  } as GatewayScene;

  beforeAll(async () => {
    const port = await freePort();
    gw.harness = await createHarness({ publicUrl: `http://localhost:${port}`, env: { POLL_INTERVAL: '1', ...UNLIMITED_RATES } });
    await gw.harness.listen(port);
    gw.client = await gw.harness.createClient('MCP gateway');
    gw.user = await gw.harness.enrollUser('demo');
    gw.workspace = await createWorkspace(['Alice', 'Bob', 'Carol', 'Dave', 'Erin', 'Frank', 'Grace', 'Heidi', 'Ivan', 'Judy', 'Mallory', 'Niaj', 'Olivia', 'Peggy', 'Trent']);
  });

  afterAll(async () => {
    for (const item of open.reverse()) await item.close().catch(() => undefined);
    await gw.harness?.close();
    await gw.workspace?.remove();
  });
  return gw;
}

/**
 * Before the calling describe's tests, connects a client over stdio to a gateway with the config
 * `name` (plus `extra`); answers its MCP client once connected. Closed with the file's scene.
 */
export function useStdioGateway(gw: GatewayScene, name: string, extra: Record<string, unknown>): { readonly client: GatewayClient['client'] } {
  let gateway: GatewayClient;
  beforeAll(async () => {
    gateway = gw.track(await connectStdio(await gw.workspace.config(name, gw.client, gw.harness, extra)));
  });
  return {
    get client() {
      return gateway.client;
    },
  };
}
