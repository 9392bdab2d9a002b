import { CountersignError } from '@countersign/shared';

/** A refusal's reason code: Countersign's own, else `temporarily_unavailable` for a server or network failure. */
export function reasonCode(error: unknown, deps: { log: (line: string) => void }): string {
  if (error instanceof CountersignError) {
    if (error.status >= 500) deps.log(`Countersign failed: ${error.code}`);
    return error.code;
  }
  deps.log(`Countersign unreachable: ${(error as Error)?.message ?? String(error)}`);
  return 'temporarily_unavailable';
}
