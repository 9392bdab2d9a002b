import { describe, expect, it } from 'vitest';
import { openApiPath, operationKey, OPERATIONS } from '../server/src/openapi/index.ts';
import { documentedRoutes, METHODS, refsOf, registeredRoutes, resolvePointer } from './support/openapi-document.ts';
import { doc, harness, recordedHarness } from './support/openapi-recorded.ts';

/** The served document itself: every registered route and only those, valid OpenAPI 3.1, refusals as OAuth bodies. */
recordedHarness();

describe('GET /openapi.json', () => {
  it('documents every registered route, and only those', () => {
    const registered = registeredRoutes(harness);
    const documented = documentedRoutes(doc);
    expect(registered.size).toBeGreaterThan(45);
    expect([...registered].filter((route) => !documented.has(route))).toEqual([]);
    expect([...documented].filter((route) => !registered.has(route))).toEqual([]);
    // The registry (server/src/openapi) is what the document is built from, key for key.
    expect(new Set(OPERATIONS.map((operation) => operationKey(operation.method, openApiPath(operation.path))))).toEqual(documented);
    expect(documented.has('GET /requests/{auth_req_id}')).toBe(true);
    expect(documented.has('DELETE /api/admin/users/{sub}/blocks/{client_id}')).toBe(true);
  });

  it('is an OpenAPI 3.1 document whose operations all answer and whose references all resolve', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.title).toBe('Countersign');
    const operationIds = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      expect(path.startsWith('/'), path).toBe(true);
      for (const [method, operation] of Object.entries(item)) {
        expect(METHODS, `${path}: ${method}`).toContain(method);
        const statuses = Object.keys(operation.responses ?? {});
        expect(statuses.length, `${method} ${path}`).toBeGreaterThan(0);
        for (const status of statuses) expect(status, `${method} ${path}`).toMatch(/^[1-5][0-9][0-9]$/);
        expect(operationIds.has(operation.operationId), operation.operationId).toBe(false);
        operationIds.add(operation.operationId);
        // Every `{name}` of the template is a required path parameter, and no other is declared.
        const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
        const declared = (operation.parameters ?? []).filter((parameter: any) => parameter.in === 'path');
        expect(declared.map((parameter: any) => parameter.name).sort(), `${method} ${path}`).toEqual(templated.sort());
        for (const parameter of declared) expect(parameter.required).toBe(true);
        for (const requirement of operation.security ?? []) for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes, scheme).toHaveProperty(scheme);
      }
    }
    const refs = refsOf(doc);
    expect(refs.length).toBeGreaterThan(20);
    for (const { ref, at } of refs) {
      expect(ref, at).toMatch(/^#\//);
      expect(resolvePointer(doc, ref), `${ref} at ${at}`).toBeTypeOf('object');
    }
    expect(doc.components.schemas).toHaveProperty('RequestDisplay');
  });

  it('lists each path’s refusals as OAuth error bodies under their statuses', () => {
    const redeem = doc.paths['/redeem']!.post;
    expect(redeem.responses['409'].content['application/json'].schema.properties.error.enum).toEqual(['stale_record', 'already_redeemed']);
    expect(redeem.responses['403'].content['application/json'].schema.properties.error.enum).toEqual(expect.arrayContaining(['unauthorized_client', 'mandate_revoked']));
    expect(redeem.responses['401'].content['application/json'].schema.properties.error.enum).toEqual(['invalid_client', 'invalid_token']);
    expect(redeem.responses['400'].content['application/json'].schema.required).toEqual(['error', 'error_description']);
    const token = doc.paths['/token']!.post;
    expect(token.responses['400'].content['application/json'].schema.properties.error.enum).toEqual(expect.arrayContaining(['authorization_pending', 'slow_down', 'expired_token', 'access_denied', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type']));
    expect(token.requestBody.content).toHaveProperty(['application/x-www-form-urlencoded']);
    // The request schema is the route's own: /redeem's strict body refuses members it does not list.
    expect(redeem.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
    expect(redeem.requestBody.content['application/json'].schema.required).toEqual(['token']);
  });
});
