import type { EnrolledUser } from '../../support/harness.ts';
import { basic, type Raw } from '../../support/raw-request.ts';
import { FORM, JSON_TYPE, payment, txn, type World } from './world.ts';

/**
 * The cases of the bad-input suite (`suite.ts`) and the builders that write their requests, one
 * for each kind of endpoint: each takes what varies and returns the request for a given world.
 */

/** One attack: its request, the refusal it must get, and what it may consume by design. */
export interface Attack {
  name: string;
  request: (w: World) => Raw | Promise<Raw>;
  status: number;
  /** The exact error code; a list when more than one is right. */
  error: string | string[];
  /** A `WWW-Authenticate` challenge the answer must carry. */
  challenge?: RegExp;
  /** Keys of single-use values this refusal is designed to consume. */
  consumes?: RegExp;
  /** What the `error_description` must say, where a newcomer needs it said plainly. */
  description?: RegExp;
  /** The exact `Allow` header of a 405. */
  allow?: string;
}

/** The `WWW-Authenticate` challenges of client and bearer authentication. */
export const BASIC_CHALLENGE = /^Basic realm=/;
export const BEARER_CHALLENGE = /^Bearer /;
/** The error of every refused `authorization_details`. */
export const IAD = 'invalid_authorization_details';
/** JSON arrays nested `depth` deep. */
export const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
/** An origin that is not the server's. */
export const EVIL = 'https://evil.example';

/** One payment in `authorization_details`, with one member replaced by raw JSON text. */
export function rawDetails(member: string, json: string): string {
  const base = payment({ transaction_id: txn() });
  const parts = Object.entries(base).map(([name, value]) => `"${name}":${name === member ? json : JSON.stringify(value)}`);
  if (!Object.hasOwn(base, member)) parts.push(`"${member}":${json}`);
  return `[{${parts.join(',')}}]`;
}

/** One payment in `authorization_details` as JSON text, with overrides (undefined removes a member). */
export function detailsWith(overrides: Record<string, unknown>): string {
  return JSON.stringify([payment({ transaction_id: txn(), ...overrides })]);
}

/** `text` as UTF-8 with the first `marker` replaced by one raw byte. */
export function withRawByte(text: string, marker: string, byte: number): Uint8Array<ArrayBuffer> {
  const [before, after] = [text.slice(0, text.indexOf(marker)), text.slice(text.indexOf(marker) + marker.length)];
  const encoder = new TextEncoder();
  return new Uint8Array([...encoder.encode(before), byte, ...encoder.encode(after)]);
}

/** `value` in base64url. */
export function b64url(value: string): string {
  return Buffer.from(value).toString('base64url');
}

/** An unsigned (`alg: none`) copy of the approval token's claims. */
export function unsignedToken(w: World): string {
  const payload = w.approvedToken.split('.')[1]!;
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
  return `${b64url(JSON.stringify({ alg: 'none', typ: 'at+jwt' }))}.${b64url(JSON.stringify(claims))}.`;
}

/** The approval token with its payload moved to client B and the original signature kept. */
export function tamperedToken(w: World): string {
  const [header, payload, signature] = w.approvedToken.split('.');
  const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
  return `${header}.${b64url(JSON.stringify({ ...claims, client_id: w.b.client_id }))}.${signature}`;
}

/** `POST /bc-authorize` with a form (or raw text) as client A, unless `auth` says otherwise (undefined for none). */
export function bc(params: Record<string, string> | string, options: { auth?: (w: World) => string | undefined; type?: string } = {}) {
  return (w: World): Raw => {
    const auth = options.auth ? options.auth(w) : basic(w.a);
    return {
      method: 'POST',
      path: '/bc-authorize',
      headers: { 'content-type': options.type ?? FORM, ...(auth === undefined ? {} : { authorization: auth }) },
      body: typeof params === 'string' ? params : new URLSearchParams(params).toString(),
    };
  };
}

/** A form body from pairs, percent-encoding the values but leaving `raw` pairs as written. */
export function formText(params: Record<string, string>, ...raw: string[]): string {
  return [new URLSearchParams(params).toString(), ...raw].filter(Boolean).join('&');
}

/** `POST /token` with a form (or raw text) as client A, unless `auth` says otherwise. */
export function token(params: (w: World) => Record<string, string> | string, options: { auth?: (w: World) => string | undefined; type?: string } = {}) {
  return (w: World): Raw => {
    const value = params(w);
    const auth = options.auth ? options.auth(w) : basic(w.a);
    return {
      method: 'POST',
      path: '/token',
      headers: { 'content-type': options.type ?? FORM, ...(auth === undefined ? {} : { authorization: auth }) },
      body: typeof value === 'string' ? value : new URLSearchParams(value).toString(),
    };
  };
}

/** A JSON request as client A, unless `auth` says otherwise. */
export function json(method: string, path: (w: World) => string, body: (w: World) => unknown, options: { auth?: (w: World) => string | undefined; type?: string } = {}) {
  return (w: World): Raw => {
    const value = body(w);
    const auth = options.auth ? options.auth(w) : basic(w.a);
    return {
      method,
      path: path(w),
      headers: { 'content-type': options.type ?? JSON_TYPE, ...(auth === undefined ? {} : { authorization: auth }) },
      body: typeof value === 'string' ? value : JSON.stringify(value),
    };
  };
}

/** A GET as client A, unless `auth` says otherwise. */
export function get(path: (w: World) => string, auth: (w: World) => string | undefined = (w) => basic(w.a)) {
  return (w: World): Raw => {
    const value = auth(w);
    return { method: 'GET', path: path(w), headers: value === undefined ? {} : { authorization: value } };
  };
}

/** One call to `/api/device/*`: what `device` turns into a request. */
export interface DeviceCall {
  method: string;
  path: string;
  body?: unknown;
  /** A session cookie; none by default. */
  as?: EnrolledUser | string;
  /** `Origin`; PUBLIC_URL by default, null for none. */
  origin?: string | null;
  type?: string | null;
}

/** A call to `/api/device/*`, with the server's own Origin and a JSON body unless `call` says otherwise. */
export function device(call: (w: World) => DeviceCall | Promise<DeviceCall>) {
  return async (w: World): Promise<Raw> => {
    const spec = await call(w);
    const headers: Record<string, string> = {};
    const origin = spec.origin === undefined ? w.h.issuer : spec.origin;
    if (origin !== null) headers.origin = origin;
    if (spec.as !== undefined) headers.cookie = typeof spec.as === 'string' ? spec.as : spec.as.cookie;
    if (spec.body !== undefined && spec.type !== null) headers['content-type'] = spec.type ?? JSON_TYPE;
    return {
      method: spec.method,
      path: `/api/device${spec.path}`,
      headers,
      ...(spec.body === undefined ? {} : { body: typeof spec.body === 'string' ? spec.body : JSON.stringify(spec.body) }),
    };
  };
}

/** A call to `/api/admin/*` with the operator's bearer token, unless `auth` says otherwise. */
export function admin(method: string, path: (w: World) => string, body?: unknown, options: { auth?: (w: World) => string | undefined; type?: string } = {}) {
  return (w: World): Raw => {
    const auth = options.auth ? options.auth(w) : `Bearer ${w.h.adminToken}`;
    const headers: Record<string, string> = auth === undefined ? {} : { authorization: auth };
    if (body !== undefined) headers['content-type'] = options.type ?? JSON_TYPE;
    return { method, path: `/api/admin${path(w)}`, headers, ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }) };
  };
}
