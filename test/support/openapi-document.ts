import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { operationKey, openApiPath } from '../../server/src/openapi/index.ts';
import type { Harness } from './harness.ts';

// Checks of an OpenAPI 3.1 document against the app (test/openapi-*.test.ts): its routes, its
// references, and answers and request bodies validated with ajv against the documented schemas.

// ajv-formats is CommonJS; its default export arrives wrapped once under vitest.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => void;

/** The parts of an OpenAPI document the checks read. */
export type Doc = { openapi: string; info: { title: string }; paths: Record<string, Record<string, any>>; components: Record<string, Record<string, unknown>> };

/** One answer the app gave during the flow. */
export interface Seen {
  method: string;
  path: string;
  status: number;
  contentType: string;
  text: string;
  /** What was sent: its content type and text, when there was a body. */
  sent?: { contentType: string; text: string };
}

const DOC_ID = 'https://countersign.test/openapi.json';
/** The methods an OpenAPI path item may hold operations under (those the app uses). */
export const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** A JSON pointer segment inside a URI fragment (RFC 6901 §3 and §6). */
const pointer = (segment: string) => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));

/** The documented path template that `path` (no query) matches, if any. */
export function templateOf(doc: Doc, path: string): string | undefined {
  return Object.keys(doc.paths).find((template) => new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path));
}

/** The routes hono registered, as `METHOD /openapi/{template}`: without middleware, the PWA's static files and the console's assets. */
export function registeredRoutes(harness: Harness): Set<string> {
  return new Set(harness.app.routes.filter((route) => route.method !== 'ALL' && !route.path.includes('*') && route.path !== '/' && route.path !== '/console' && !route.path.startsWith('/console/')).map((route) => operationKey(route.method, openApiPath(route.path))));
}

/** The documented operations, as `METHOD /template`. */
export function documentedRoutes(doc: Doc): Set<string> {
  return new Set(
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => METHODS.includes(key))
        .map((method) => operationKey(method, path)),
    ),
  );
}

/** Every `$ref` in `value`, with where it sits. */
export function refsOf(value: unknown, at = '#'): { ref: string; at: string }[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => refsOf(item, `${at}/${index}`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => (key === '$ref' && typeof inner === 'string' ? [{ ref: inner, at }] : refsOf(inner, `${at}/${key}`)));
}

/** What a local `$ref` (`#/components/schemas/X`) points at in `doc`, or undefined. */
export function resolvePointer(doc: unknown, ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .map((segment) => decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, segment) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[segment] : undefined), doc);
}

/**
 * Checks one answer against the document: its path and method are documented, its status is one of
 * the operation's, and its body validates against that status's schema (JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1, with ajv). Answers the operation's key and a problem, or null.
 */
export function check(doc: Doc, ajv: Ajv2020, seen: Seen): { key: string; problem: string | null } {
  const template = templateOf(doc, seen.path);
  const key = operationKey(seen.method, template ?? seen.path);
  if (!template || !doc.paths[template]![seen.method.toLowerCase()]) return { key, problem: 'not documented' };
  const response = doc.paths[template]![seen.method.toLowerCase()].responses[String(seen.status)];
  if (!response) return { key, problem: `status ${seen.status} not documented: ${seen.text.slice(0, 200)}` };
  if (!response.content) return { key, problem: seen.text === '' ? null : `documented without a body, answered ${seen.text.slice(0, 100)}` };
  const mediaType = Object.keys(response.content).find((type) => seen.contentType.startsWith(type));
  if (!mediaType) return { key, problem: `content type ${seen.contentType} not documented` };
  const ref = `${DOC_ID}#/paths/${pointer(template)}/${seen.method.toLowerCase()}/responses/${seen.status}/content/${pointer(mediaType)}/schema`;
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  const body = mediaType === 'application/json' ? JSON.parse(seen.text) : seen.text;
  return { key, problem: validate(body) ? null : `${seen.status} body does not match: ${ajv.errorsText(validate.errors)} in ${seen.text.slice(0, 300)}` };
}

/**
 * Checks what an accepted call sent against the documented request body (a form as an object of
 * strings): a body the route took must be one the document allows. Answers a problem, or null.
 */
export function checkSent(doc: Doc, ajv: Ajv2020, seen: Seen): string | null {
  const template = templateOf(doc, seen.path);
  if (!seen.sent || !template || seen.status >= 300) return null;
  const body = doc.paths[template]![seen.method.toLowerCase()]?.requestBody;
  if (!body) return `sent a body to an operation that documents none`;
  const mediaType = Object.keys(body.content).find((type) => seen.sent!.contentType.startsWith(type));
  if (!mediaType) return `sent ${seen.sent.contentType}, not documented`;
  const ref = `${DOC_ID}#/paths/${pointer(template)}/${seen.method.toLowerCase()}/requestBody/content/${pointer(mediaType)}/schema`;
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  const sent = mediaType === 'application/json' ? JSON.parse(seen.sent.text) : Object.fromEntries(new URLSearchParams(seen.sent.text));
  return validate(sent) ? null : `request body does not match: ${ajv.errorsText(validate.errors)} in ${seen.sent.text.slice(0, 200)}`;
}

/** An ajv (JSON Schema 2020-12) that knows `doc` under one id, so its `$ref`s resolve. */
export function validator(doc: Doc): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats(ajv);
  ajv.addSchema(structuredClone(doc), DOC_ID);
  return ajv;
}
