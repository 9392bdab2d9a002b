import { execFileSync } from 'node:child_process';
import { createECDH, randomBytes, type ECDH } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Agent } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ece from 'http_ece';
import { pushSubscription, type PushSubscriptionJSON } from '@countersign/shared';

/** One request the receiver got. */
export interface ReceivedPush {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A local stand-in for a push service (RFC 8030 §5), over HTTPS with a throwaway CA. */
export interface PushReceiver {
  /** `https://127.0.0.1:PORT`: the VAPID `aud` the sender must use. */
  origin: string;
  /** The throwaway CA certificate (PEM). */
  ca: string;
  /** An HTTPS agent that trusts only that CA. */
  agent: Agent;
  /** Every request received, in order. */
  received: ReceivedPush[];
  /** The endpoint URL for a path (`/push/a` → `https://127.0.0.1:PORT/push/a`). */
  endpoint(path: string): string;
  /** Makes the receiver answer `status` for `path` from now on (201 Created by default). */
  answer(path: string, status: number): void;
  close(): Promise<void>;
}

/**
 * Makes a CA and a leaf certificate for `localhost` and 127.0.0.1 with the openssl CLI (node:crypto
 * cannot issue X.509 certificates), keeping the files only while openssl runs.
 */
function makeCertificates(): { ca: string; key: string; cert: string } {
  const dir = mkdtempSync(join(tmpdir(), 'countersign-push-'));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  try {
    const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
    openssl('req', '-x509', ...ec, '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '1', '-subj', '/CN=Countersign throwaway test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
    openssl('req', ...ec, '-keyout', file('leaf.key'), '-out', file('leaf.csr'), '-subj', '/CN=localhost');
    writeFileSync(file('leaf.ext'), ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature', 'extendedKeyUsage=serverAuth', 'subjectAltName=DNS:localhost,IP:127.0.0.1'].join('\n'));
    openssl('x509', '-req', '-in', file('leaf.csr'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-set_serial', `0x${Date.now().toString(16)}`, '-days', '1', '-extfile', file('leaf.ext'), '-out', file('leaf.pem'));
    return {
      ca: readFileSync(file('ca.pem'), 'utf8'),
      key: readFileSync(file('leaf.key'), 'utf8'),
      cert: readFileSync(file('leaf.pem'), 'utf8'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Starts a push receiver on 127.0.0.1 on a free port. It records every request and answers
 * 201 Created with a `Location` (RFC 8030 §5), or the status set with `answer(path, status)`.
 */
export async function startPushReceiver(): Promise<PushReceiver> {
  const { ca, key, cert } = makeCertificates();
  const received: ReceivedPush[] = [];
  const answers = new Map<string, number>();

  const server = createServer({ key, cert }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks) });
      const status = answers.get(path) ?? 201;
      if (status === 201) response.setHeader('Location', `/message/${received.length}`);
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = new Agent({ ca });

  return {
    origin,
    ca,
    agent,
    received,
    endpoint: (path) => `${origin}${path}`,
    answer: (path, status) => void answers.set(path, status),
    close: async () => {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A subscription made the way a browser makes one: a P-256 ECDH key pair and 16 random auth bytes. */
export interface BrowserSubscription {
  subscription: PushSubscriptionJSON;
  ecdh: ECDH;
  auth: Buffer;
}

/** A browser's subscription to `endpoint` (RFC 8291 §3: its `p256dh` key and `auth` secret), with the private half to decrypt. */
export function browserSubscription(endpoint: string): BrowserSubscription {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  const subscription = pushSubscription.parse({
    endpoint,
    expirationTime: null,
    keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
  });
  return { subscription, ecdh, auth };
}

/** Decrypts a received push as the browser would (RFC 8291, `aes128gcm`); throws when it is not for `browser`. */
export function decrypt(push: ReceivedPush, browser: BrowserSubscription): Buffer {
  return ece.decrypt(push.body, { version: 'aes128gcm', privateKey: browser.ecdh, authSecret: browser.auth });
}
