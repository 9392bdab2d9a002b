import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { UpstreamConfig } from './config.ts';

/** The gateway's name and version, toward the upstream and toward its own clients. */
export const GATEWAY_INFO = { name: 'countersign-mcp-gateway', version: '0.1.0' } as const;

/** A connected upstream MCP server. */
export interface Upstream {
  client: Client;
  /** Closes the connection; a stdio upstream's process is ended (SIGTERM, then SIGKILL). */
  close(): Promise<void>;
}

/**
 * Connects to the upstream MCP server as an MCP client (the official SDK's `Client`): spawns a
 * stdio command (its stderr goes to the gateway's, never to stdout) or opens a Streamable HTTP
 * session. `onClose` runs when the connection ends on its own: the upstream process exited.
 *
 * @throws the SDK's error when the upstream cannot be started or does not initialise.
 * @see MCP 2025-11-25 "Transports" (stdio, Streamable HTTP), "Lifecycle"
 */
export async function connectUpstream(config: UpstreamConfig, onClose: () => void): Promise<Upstream> {
  const transport = 'url' in config ? new StreamableHTTPClientTransport(new URL(config.url)) : new StdioClientTransport({ command: config.command, args: config.args, env: config.env, stderr: 'inherit', ...(config.cwd ? { cwd: config.cwd } : {}) });
  const client = new Client(GATEWAY_INFO, { capabilities: {} });
  let closing = false;
  client.onclose = () => {
    if (!closing) onClose();
  };
  await client.connect(transport);
  return {
    client,
    async close() {
      closing = true;
      await client.close();
    },
  };
}
