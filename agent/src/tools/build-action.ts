import { authorizationDetails, type AuthorizationDetails } from '@countersign/shared';
import type { ApprovalRequest } from '../client/index.ts';
import { CountersignError } from '@countersign/shared';
import type { AnyGatedTool } from './tool-types.ts';

/**
 * The exact action a gated tool's arguments stand for, validated and normalised by the shared
 * `authorization_details` schema (NFC, trimmed), so asking and redeeming hash the same bytes for
 * the same arguments.
 *
 * @throws CountersignError `invalid_request` when the tool builds an action the registry refuses;
 *   whatever `toAuthorizationDetails` throws (a 4xx `CountersignError` such as `not_found` is a refusal).
 * @see RFC 9396 §2, docs/design.md guarantees 2–3
 */
export async function buildAction<C>(tool: AnyGatedTool<C>, args: unknown, context: C): Promise<AuthorizationDetails> {
  const built: unknown = await tool.approval.toAuthorizationDetails(args, context);
  const parsed = authorizationDetails.safeParse(built);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.map(String).join('.')}: ${issue.message}`);
    throw new CountersignError('invalid_request', `${tool.name}: the action is not valid authorization_details (${problems.join('; ')})`, {
      cause: parsed.error,
    });
  }
  return parsed.data;
}

/**
 * The backchannel authentication request for one call of a gated tool: who approves, the exact
 * action, and the binding message, all from the tool's own definition and the call's arguments.
 *
 * @see CIBA Core 1.0 §7.1
 */
export async function buildApprovalRequest<C>(tool: AnyGatedTool<C>, args: unknown, context: C): Promise<ApprovalRequest> {
  const { approval } = tool;
  const authorization_details = await buildAction(tool, args, context);
  const login_hint = typeof approval.login_hint === 'function' ? await approval.login_hint(args, context) : approval.login_hint;
  const binding_message = approval.binding_message?.(args, context);
  return {
    login_hint,
    authorization_details,
    ...(binding_message === undefined ? {} : { binding_message }),
    ...(approval.requested_expiry === undefined ? {} : { requested_expiry: approval.requested_expiry }),
  };
}
