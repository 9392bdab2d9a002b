/**
 * `pnpm --silent mcp-gateway --config FILE [--http PORT]`: the Countersign MCP gateway
 * (docs/mcp-gateway.md). In stdio mode stdout carries MCP and nothing else; every log line goes to
 * stderr. The gateway ends, and its upstream with it, when its stdin closes: a desktop MCP client
 * that runs it through pnpm sends no signal it would pass on.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { parseCliArgs } from './cli-args.ts';
import { ConfigError, loadConfig } from './config.ts';
import { createGateway } from './gateway.ts';
import { serveHttp } from './serve-http.ts';
import { createMemoryCallStore, createRedisCallStore } from './store/index.ts';
import { connectUpstream } from './upstream.ts';

const log = (line: string) => void process.stderr.write(`[mcp-gateway] ${line}\n`);

async function main(): Promise<void> {
  const args = parseCliArgs(process.argv.slice(2));
  const config = await loadConfig(args.config);
  const redisUrl = process.env.REDIS_URL;
  if (!redisUrl) log('REDIS_URL is not set: pending calls are kept in memory and lost on a restart (development only)');
  const store = redisUrl ? createRedisCallStore(redisUrl, config.redis_prefix) : createMemoryCallStore();

  let stopping = false;
  let httpServer: Awaited<ReturnType<typeof serveHttp>> | undefined;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await gateway?.close().catch(() => undefined);
    await httpServer?.closeSessions();
    httpServer?.close();
    await upstream?.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    process.exit(code);
  };
  // Said before the wait: an upstream that cannot start (npx without its registry) is otherwise silent.
  // Neither the arguments nor a URL's credentials or query: they may hold a key.
  log('url' in config.upstream ? `connecting to the upstream ${config.upstream.name} at ${new URL(config.upstream.url).host}` : `starting the upstream ${config.upstream.name} (${config.upstream.command})`);
  const upstream = await connectUpstream(config.upstream, () => {
    log(`the upstream ${config.upstream.name} went away`);
    void stop(1);
  });
  const gateway = createGateway({ config, upstream, store, log });
  process.once('SIGTERM', () => void stop(0));
  process.once('SIGINT', () => void stop(0));

  if (args.http === undefined) {
    process.stdin.once('end', () => void stop(0));
    process.stdin.once('close', () => void stop(0));
    await gateway.connect(new StdioServerTransport());
    log(`serving ${config.upstream.name} over stdio`);
  } else {
    httpServer = await serveHttp(gateway, args.http, log);
    log(`serving ${config.upstream.name} at http://localhost:${args.http}/mcp`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError || error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
