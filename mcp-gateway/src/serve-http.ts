import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { Gateway } from './gateway.ts';

/** Host names a loopback listener answers to: a page on another name rebinding to 127.0.0.1 is refused. */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Serves the gateway over Streamable HTTP at `http://localhost:<port>/mcp`, one MCP session (and
 * one SDK `StreamableHTTPServerTransport`) per `Mcp-Session-Id`. Listens on loopback only: an
 * approval gate reachable from the network would let anyone ask the person's phone.
 *
 * @returns the listening server; `close()` it to stop (sessions are closed too).
 * @see MCP 2025-11-25 "Transports" (Streamable HTTP, session management, security warning)
 */
export async function serveHttp(gateway: Gateway, port: number, log: (line: string) => void): Promise<HttpServer & { closeSessions(): Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (!LOOPBACK_HOSTS.has(host)) return reply(res, 403, 'this gateway answers on localhost only');
    if (url.pathname !== '/mcp') return reply(res, 404, 'the MCP endpoint is /mcp');
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const transport = sessions.get(id);
      if (!transport) return reply(res, 404, 'unknown or ended session');
      return transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return reply(res, 400, 'a new session starts with a POST of initialize');
    // A new session: the transport itself refuses anything but an initialize request.
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sessionId) => void sessions.set(sessionId, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await gateway.connect(transport);
    await transport.handleRequest(req, res);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`HTTP request failed: ${(error as Error)?.message ?? String(error)}`);
      if (!res.headersSent) reply(res, 500, 'internal error');
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return Object.assign(server, {
    async closeSessions() {
      for (const transport of sessions.values()) await transport.close().catch(() => undefined);
    },
  });
}

/** A JSON-RPC error body without an id, as the SDK's transport answers transport-level refusals. */
function reply(res: ServerResponse, status: number, message: string) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
