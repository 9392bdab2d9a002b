import { base64url, canonicalize, sha256 } from '@countersign/shared';

/**
 * The key of one tool call: `<tool>:<base64url SHA-256 of the arguments in JCS>`. The same tool
 * with the same validated arguments gives the same key in any process, so a restarted agent that
 * makes the call again finds the approval it was waiting for.
 *
 * @param tool - the tool's name.
 * @param args - the arguments as the tool's schema returned them (plain JSON values).
 * @throws TypeError when the arguments are not JSON (JCS, RFC 8785 §3.2).
 * @see RFC 8785 (JSON Canonicalization Scheme)
 */
export async function callKey(tool: string, args: unknown): Promise<string> {
  return `${tool}:${base64url(await sha256(canonicalize(args)))}`;
}
