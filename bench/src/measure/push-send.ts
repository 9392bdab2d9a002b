import { createWebPushSender } from '@countersign/server';
import { createECDH, randomBytes } from 'node:crypto';
import { benchConfig } from '../config.ts';
import type { PushReceiver } from '../infra/push-receiver.ts';

/** What one Web Push send costs with the server's own sender. */
export interface PushSendResult {
  sends: number;
  /** Mean wall time of one send, one after another, milliseconds. */
  meanMs: number;
  p99Ms: number;
  /** CPU of this process per send (the sender's encryption, VAPID signing and TLS, plus the receiver's side), microseconds. */
  cpuMicrosPerSend: number;
  ok: number;
}

/**
 * Sends `benchConfig.pushSends` messages one after another to the local receiver with
 * `createWebPushSender` (the sender the server uses: RFC 8291 aes128gcm, an RFC 8292 VAPID JWT
 * per message, web-push's HTTPS request), with an agent that trusts the receiver's CA.
 */
export async function measurePushSend(receiver: PushReceiver): Promise<PushSendResult> {
  const vapidKey = createECDH('prime256v1');
  vapidKey.generateKeys();
  const sender = createWebPushSender({
    vapid: { publicKey: vapidKey.getPublicKey().toString('base64url'), privateKey: vapidKey.getPrivateKey().toString('base64url'), subject: 'mailto:bench@countersign.invalid' },
    agent: receiver.agent,
  });
  const browser = createECDH('prime256v1');
  browser.generateKeys();
  const subscription = { endpoint: receiver.endpoint('/push/send-cost'), expirationTime: null, keys: { p256dh: browser.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') } };
  const payload = JSON.stringify({ auth_req_id: randomBytes(32).toString('base64url'), summary: 'Bench agent: EUR 490.00 to ACME Ltd' });
  const send = () => sender.send(subscription, payload, { ttlSeconds: 300, urgency: 'high', topic: 'bench' });
  for (let i = 0; i < 20; i++) await send(); // warm-up: JIT, TLS session
  const times: number[] = [];
  let ok = 0;
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < benchConfig.pushSends; i++) {
    const started = performance.now();
    const result = await send();
    times.push(performance.now() - started);
    if (result.status === 'sent') ok++;
  }
  const cpu = process.cpuUsage(cpu0);
  times.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  return {
    sends: times.length,
    meanMs: round(times.reduce((a, b) => a + b, 0) / times.length),
    p99Ms: round(times[Math.ceil(times.length * 0.99) - 1]!),
    cpuMicrosPerSend: Math.round((cpu.user + cpu.system) / times.length),
    ok,
  };
}
