import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { PingInbox } from '@countersign/agent';

/** A client's notification endpoint on loopback, served by a ping inbox (CIBA Core §10.2). */
export interface PingEndpoint {
  /** The URL to register as `backchannel_client_notification_endpoint`. */
  url: string;
  close(): Promise<void>;
}

/** Serves `inbox.handle` on a free loopback port, at `/cb`. */
export async function servePingInbox(inbox: PingInbox): Promise<PingEndpoint> {
  const server = serve({ fetch: (request) => inbox.handle(request), port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/cb`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
