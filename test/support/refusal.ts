import { CountersignError } from '@countersign/shared';

/** The refusal `promise` rejects with; throws when it resolves, or rejects with anything else. */
export async function errorOf(promise: Promise<unknown>): Promise<CountersignError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof CountersignError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}
