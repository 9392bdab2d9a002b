import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arrivalWaiter } from '../support/arrival-waiter.ts';
import { monotonicMs } from './clock.ts';

/**
 * A local stand-in for a push service (RFC 8030 §5) over HTTPS with a throwaway CA, as in
 * test/support/push-receiver.ts, cut down to what a benchmark needs: it counts the messages and
 * their bytes, checks each carries a VAPID `Authorization` and an aes128gcm body, notes when the
 * first message of each `Topic` arrived, and answers 201 Created. Decrypting is left to the Web
 * Push tests; here it would only load this process: the server's `Topic` of a request's message
 * (`topicFor(auth_req_id)`, RFC 8030 §5.4) already says which request it announces.
 */
export interface PushReceiver {
  /** `https://127.0.0.1:PORT`. */
  origin: string;
  /** The CA certificate file, for `NODE_EXTRA_CA_CERTS` of the server that sends to it. */
  caFile: string;
  ca: string;
  /** An HTTPS agent that trusts the CA, for sends made in this process. */
  agent: Agent;
  /** Messages received, and how many of them lacked a VAPID header or an aes128gcm body. */
  stats: { received: number; malformed: number; bytes: number };
  /** When the first message of each `Topic` was fully received, on the monotonic clock (`monotonicMs`). */
  arrivals: Map<string, number>;
  endpoint(path: string): string;
  /** Resolves once `count` messages have arrived (or after `timeoutMs`); answers the wait in ms. */
  waitFor(count: number, timeoutMs: number): Promise<number>;
  /** Resolves once `done()` holds, checked as messages arrive (or after `timeoutMs`); answers the wait in ms. */
  waitUntil(done: () => boolean, timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

function makeCertificates(dir: string): { ca: string; key: string; cert: string } {
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '1', '-subj', '/CN=Countersign throwaway bench CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  openssl('req', ...ec, '-keyout', file('leaf.key'), '-out', file('leaf.csr'), '-subj', '/CN=localhost');
  writeFileSync(file('leaf.ext'), ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=serverAuth', 'subjectAltName=DNS:localhost,IP:127.0.0.1'].join('\n'));
  openssl('x509', '-req', '-in', file('leaf.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-set_serial', `0x${Date.now().toString(16)}`, '-days', '1', '-extfile', file('leaf.ext'), '-out', file('leaf.pem'));
  return { ca: readFileSync(file('ca.pem'), 'utf8'), key: readFileSync(file('leaf.key'), 'utf8'), cert: readFileSync(file('leaf.pem'), 'utf8') };
}

/**
 * Starts the receiver on 127.0.0.1 (a free port). The CA is written to `workDir/push-ca.pem`;
 * the keys are made in a temporary directory that is removed at once.
 * @throws Error when the openssl CLI is missing.
 */
export async function startPushReceiver(workDir: string): Promise<PushReceiver> {
  const keyDir = mkdtempSync(join(tmpdir(), 'countersign-bench-ca-'));
  let material: { ca: string; key: string; cert: string };
  try {
    material = makeCertificates(keyDir);
  } finally {
    rmSync(keyDir, { recursive: true, force: true });
  }
  const caFile = join(workDir, 'push-ca.pem');
  writeFileSync(caFile, material.ca);
  const stats = { received: 0, malformed: 0, bytes: 0 };
  const arrivals = new Map<string, number>();
  const waiter = arrivalWaiter();

  const server = createServer({ key: material.key, cert: material.cert, keepAliveTimeout: 30_000 }, (request, response) => {
    let bytes = 0;
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => {
      const topic = request.headers.topic;
      if (typeof topic === 'string' && !arrivals.has(topic)) arrivals.set(topic, monotonicMs());
      stats.received++;
      stats.bytes += bytes;
      const vapid = /^vapid t=[\w-]+\.[\w-]+\.[\w-]+, k=[\w-]+$/.test(request.headers.authorization ?? '');
      if (!vapid || request.headers['content-encoding'] !== 'aes128gcm' || bytes === 0) stats.malformed++;
      response.setHeader('Location', `/message/${stats.received}`);
      response.writeHead(201).end();
      waiter.moved();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = new Agent({ ca: material.ca, keepAlive: true });

  return {
    origin,
    caFile,
    ca: material.ca,
    agent,
    stats,
    arrivals,
    endpoint: (path) => `${origin}${path}`,
    waitFor: (count, timeoutMs) => waiter.waitUntil(() => stats.received >= count, timeoutMs),
    waitUntil: waiter.waitUntil,
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
