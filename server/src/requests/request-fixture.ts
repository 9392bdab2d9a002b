import type { ApprovalRequest } from './request-record.ts';

/**
 * A request for unit tests: tenant `default`, client `cli_test`, user `alice`, no action, created
 * at `now` and deciding within `expiresInSeconds`; `overrides` replaces any field. Test code only.
 */
export function testRequest(authReqId: string, now: number, expiresInSeconds: number, overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return {
    auth_req_id: authReqId,
    tenant: 'default',
    client_id: 'cli_test',
    client_name: 'Test',
    sub: 'alice',
    scope: 'openid',
    binding_message: null,
    authorization_details: [],
    details_hash: 'hash',
    state: 'pending',
    created_at: now,
    expires_at: now + expiresInSeconds * 1000,
    interval: 5,
    token_delivery_mode: 'ping',
    outcome: null,
    ...overrides,
  };
}
