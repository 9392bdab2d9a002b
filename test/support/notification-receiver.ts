import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got. */
export interface ReceivedNotification {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body text, exactly as sent. */
  text: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: any;
}

/** How the receiver answers one request: an HTTP status, or `'hang'` (never answer). */
export type Answer = number | 'hang';

/** A client's notification endpoint (CIBA Core §10.2, §10.3) on loopback plain HTTP, as development mode allows. */
export interface NotificationReceiver {
  /** `http://127.0.0.1:PORT/cb`: register it as `backchannel_client_notification_endpoint`. */
  url: string;
  /** Every request received, in order, including those answered with an error or left hanging. */
  received: ReceivedNotification[];
  /** Answers for the next requests, in order; once they are used up, 204 No Content. */
  script(...answers: Answer[]): void;
  close(): Promise<void>;
}

/** Starts a {@link NotificationReceiver} on a free loopback port. */
export async function startNotificationReceiver(): Promise<NotificationReceiver> {
  const received: ReceivedNotification[] = [];
  const answers: Answer[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      received.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, text, json });
      const answer = answers.shift() ?? 204;
      if (answer === 'hang') return;
      response.writeHead(answer, answer === 204 ? {} : { 'content-type': 'text/plain' });
      response.end(answer === 204 ? undefined : `status ${answer}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/cb`,
    received,
    script: (...next) => {
      answers.push(...next);
    },
    close: () =>
      new Promise<void>((resolve) => {
        // Hanging requests keep their sockets open: close them, or `close` waits for ever.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
