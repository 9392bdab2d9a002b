import { createAgentClient, createKeyedLock, type Sleep } from '@countersign/agent';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, type CallToolRequest, CallToolResultSchema, ElicitResultSchema, ListToolsRequestSchema, ToolListChangedNotificationSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { clientAuthentication, type GatewayConfig } from './config.ts';
import { runGatedCall, type CountersignClient, type GatedCallDeps } from './gated-call.ts';
import { isGated, listedTool } from './gating.ts';
import type { CallStore } from './store/index.ts';
import { GATEWAY_INFO, type Upstream } from './upstream.ts';
import type { Waiter } from './wait-for-decision.ts';

/** How often a client should poll a task (`tasks/get`), ms. */
const TASK_POLL_INTERVAL_MS = 1000;

/** How long a task waits for the decision at most, s: past any request's lifetime (at most 86 400 s). */
const TASK_WAIT_SECONDS = 86_400;

/** An elicitation is never answered later than the request it is about could be decided (24 h). */
const REQUEST_LIFETIME_MS = TASK_WAIT_SECONDS * 1000;

/** Options of {@link createGateway}. */
export interface GatewayOptions {
  config: GatewayConfig;
  upstream: Upstream;
  store: CallStore;
  /** The agent client; one for `config.countersign` by default. */
  countersign?: CountersignClient;
  /** Epoch ms; `Date.now` by default. */
  now?: () => number;
  sleep?: Sleep;
  /** One line of log; never stdout, which is the MCP stream in stdio mode. */
  log?: (line: string) => void;
}

/** One gateway in front of one upstream: every client session it serves shares it. */
export interface Gateway {
  /** Serves one client session over `transport` (stdio, or one Streamable HTTP session). */
  connect(transport: Transport): Promise<Server>;
  close(): Promise<void>;
}

/**
 * Creates the MCP gateway: an MCP server (the SDK's low-level `Server`) whose tools are the
 * upstream's. `tools/list` passes through with gated tools marked ({@link listedTool}); a call of
 * a tool that is not gated passes straight through; a gated call goes through Countersign
 * ({@link runGatedCall}). The upstream's `notifications/tools/list_changed` reaches every session.
 *
 * @see docs/design.md "The MCP gateway"; MCP 2025-11-25 "Tools", "Elicitation"
 */
export function createGateway(options: GatewayOptions): Gateway {
  const { config, upstream, store } = options;
  const log = options.log ?? ((line: string) => void process.stderr.write(`[mcp-gateway] ${line}\n`));
  const countersign = options.countersign ?? createAgentClient({ issuer: config.countersign.issuer, clientId: config.countersign.client_id, auth: clientAuthentication(config.countersign) });
  const deps: GatedCallDeps = {
    config,
    countersign,
    store,
    upstream: upstream.client,
    lock: createKeyedLock(),
    now: options.now ?? (() => Date.now()),
    sleep: options.sleep ?? ((ms, signal) => delay(ms, undefined, signal ? { signal } : {})),
    log,
    lastPolls: new Map(),
  };
  const sessions = new Set<Server>();
  // In-process: a restarted gateway loses its tasks, not its calls (those are in the call store),
  // so a client that calls again is answered from the call's record.
  const taskStore = new InMemoryTaskStore();
  let tools = new Map<string, Tool>();

  upstream.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    tools = new Map();
    for (const session of sessions) await session.sendToolListChanged().catch(() => undefined);
  });

  /** Every tool of the upstream, all pages, remembered until the upstream says its list changed. */
  async function knownTool(name: string): Promise<Tool | undefined> {
    if (!tools.has(name)) {
      const all = new Map<string, Tool>();
      let cursor: string | undefined;
      do {
        const page = await upstream.client.listTools(cursor === undefined ? {} : { cursor });
        for (const tool of page.tools) all.set(tool.name, tool);
        cursor = page.nextCursor;
      } while (cursor);
      tools = all;
    }
    return tools.get(name);
  }

  async function connect(transport: Transport): Promise<Server> {
    const server = new Server(GATEWAY_INFO, {
      capabilities: { tools: { listChanged: true }, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } },
      taskStore,
      instructions: 'Tools marked as asking the person on their phone run only after their approval; until then they answer approval_pending: call them again with the same arguments to resume.',
    });

    /** Per request: the URL elicitations about it this client accepted, to complete once it is decided. */
    const elicited = new Map<string, string[]>();

    server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      const page = await upstream.client.listTools(request.params);
      for (const tool of page.tools) tools.set(tool.name, tool);
      return { ...page, tools: page.tools.map((tool) => listedTool(tool, config)) };
    });

    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { task, ...params } = request.params;
      if (!task || !extra.taskStore) return call({ ...request, params }, extra, undefined);
      // Tasks: answer at once with a task that stays `working` until the call settles; the
      // client polls tasks/get and fetches tasks/result. Its wait is the request's whole life.
      const created = await extra.taskStore.createTask({ ttl: task.ttl ?? null, pollInterval: TASK_POLL_INTERVAL_MS });
      const store = extra.taskStore;
      void call({ ...request, params }, extra, TASK_WAIT_SECONDS)
        .then(
          (result) => store.storeTaskResult(created.taskId, 'completed', result),
          (error: unknown) => store.storeTaskResult(created.taskId, 'failed', { isError: true, content: [{ type: 'text', text: (error as Error)?.message ?? String(error) }] }),
        )
        .catch((error: unknown) => log(`could not store the result of task ${created.taskId}: ${(error as Error)?.message}`));
      return { task: created };
    });

    async function call(request: CallToolRequest, extra: Parameters<Parameters<typeof server.setRequestHandler>[1]>[1], taskWaitSeconds: number | undefined): Promise<CallToolResult> {
      const { name } = request.params;
      const tool = await knownTool(name);
      if (!isGated(name, tool, config)) {
        // Passed on as sent (`_meta` included) and answered as answered, unvalidated: the client
        // validates the upstream's result against the upstream's schema itself.
        // A task's call is not cancelled with the request that created it.
        const signal = taskWaitSeconds === undefined ? { signal: extra.signal } : {};
        return (await upstream.client.request({ method: 'tools/call', params: request.params }, CallToolResultSchema, signal)) as CallToolResult;
      }
      if (taskWaitSeconds !== undefined) {
        // A task outlives its request (whose signal has fired once the task was answered).
        return runGatedCall(deps, { name, arguments: request.params.arguments ?? {}, tool, waiter: { signal: new AbortController().signal, waitSeconds: taskWaitSeconds } });
      }
      const waiter: Waiter = { signal: extra.signal };
      if (server.getClientCapabilities()?.elicitation?.url) {
        waiter.elicit = async ({ auth_req_id, ...params }, signal) => {
          const elicitationId = `${auth_req_id}.${randomUUID()}`;
          const answer = await extra.sendRequest({ method: 'elicitation/create', params: { mode: 'url', elicitationId, ...params } }, ElicitResultSchema, { signal, timeout: REQUEST_LIFETIME_MS }).catch((error: unknown) => ({ action: 'cancel' as const, error }));
          if (answer.action === 'accept') elicited.set(auth_req_id, [...(elicited.get(auth_req_id) ?? []), elicitationId]);
          if ('error' in answer) throw answer.error;
          return answer.action;
        };
        waiter.decided = async (auth_req_id) => {
          const ids = elicited.get(auth_req_id) ?? [];
          elicited.delete(auth_req_id);
          for (const elicitationId of ids) await extra.sendNotification({ method: 'notifications/elicitation/complete', params: { elicitationId } });
        };
      }
      const progressToken = request.params._meta?.progressToken;
      if (progressToken !== undefined) {
        let progress = 0;
        waiter.progress = () => extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: ++progress, message: 'waiting for the approval on the phone' } });
      }
      return runGatedCall(deps, { name, arguments: request.params.arguments ?? {}, tool, waiter });
    }

    server.onclose = () => void sessions.delete(server);
    sessions.add(server);
    await server.connect(transport);
    return server;
  }

  return {
    connect,
    async close() {
      for (const session of sessions) await session.close().catch(() => undefined);
    },
  };
}
