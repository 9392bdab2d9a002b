import { createServer, type AddressInfo, type Server } from 'node:net';

/**
 * A TCP listener on loopback that counts every connection it accepts and drops it, before any TLS:
 * a guard that let a connection through shows as a count above zero. For the outbound tests only.
 */
export interface CountingListener {
  port: number;
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

/** Starts a {@link CountingListener} on a free port of 127.0.0.1. */
export async function listenCounting(): Promise<CountingListener> {
  let connections = 0;
  const listener: Server = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  return {
    port: (listener.address() as AddressInfo).port,
    get connections() {
      return connections;
    },
    close: () => new Promise<void>((resolve) => listener.close(() => resolve())),
  };
}
