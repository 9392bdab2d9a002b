import { CountersignError } from '@countersign/shared';
import type { ToolCallResult } from './result-types.ts';

/** The `refused` answer for `error`. */
export function refused(tool: string, error: CountersignError, auth_req_id?: string): Extract<ToolCallResult, { status: 'refused' }> {
  return { status: 'refused', tool, error: error.code, error_description: error.message, ...(auth_req_id ? { auth_req_id } : {}) };
}

/**
 * Runs `task`; a 4xx CountersignError (bad arguments, an unknown order, the gate's no) becomes a
 * `refused` value for the model. Anything else propagates: after a 5xx or a network error it is
 * unknown whether an approval was spent, and that is not a "no".
 */
export async function refusalAsValue<T extends { status: string }>(tool: string, auth_req_id: string | undefined, task: () => Promise<T>): Promise<T | Extract<ToolCallResult, { status: 'refused' }>> {
  try {
    return await task();
  } catch (error) {
    if (error instanceof CountersignError && error.status < 500) return refused(tool, error, auth_req_id);
    throw error;
  }
}
