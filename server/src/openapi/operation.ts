import type { z } from 'zod';
import type { ErrorSpec } from './errors.ts';

/** The HTTP methods an operation is registered under (lower case, as OpenAPI writes them). */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Who may call an operation, one security scheme each (see build-document.ts). */
export type Caller = 'public' | 'client' | 'client-basic' | 'session' | 'admin';

/** One documented answer: a status's description and its body's schema (none for 204). */
export interface DocumentedResponse {
  description: string;
  schema?: z.ZodType;
  /** `application/json` unless said. */
  contentType?: string;
  /** Response headers worth naming (`ETag`, `Retry-After`…), name → description. */
  headers?: Record<string, string>;
}

/**
 * One operation of the HTTP surface, keyed by `method` and the route's hono `path` pattern
 * (`/requests/:auth_req_id`, translated to `{auth_req_id}` in the document). Request schemas are
 * the ones the route validates with wherever one exists (imported from shared/src/schemas or the
 * route's module); `errors` lists the refusals of this path besides those its `caller` implies.
 */
export interface Operation {
  method: Method;
  path: string;
  summary: string;
  tag: 'agent' | 'device' | 'admin' | 'service';
  caller: Caller;
  /** A JSON body (`application/json`), a form (`application/x-www-form-urlencoded`), or both. */
  body?: { json?: z.ZodType; form?: z.ZodType; optional?: boolean };
  /** Query parameters, as one object of optional strings mostly. */
  query?: z.ZodObject;
  /** Request headers the operation reads besides authentication (`If-Match`). */
  headers?: z.ZodObject;
  responses: Record<number, DocumentedResponse>;
  errors: readonly ErrorSpec[];
}

/** `METHOD /path` with hono's pattern: how operations and registered routes are matched. */
export function operationKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path}`;
}

/** A hono path pattern in OpenAPI's template syntax: `/users/:sub` → `/users/{sub}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** The parameter names of a hono path pattern, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!);
}
