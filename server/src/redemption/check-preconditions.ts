import { CountersignError, type AuthorizationDetails } from '@countersign/shared';

/**
 * Checks each action's `precondition` against the versions the executor states it reads right
 * now, where it will execute (`current_versions` of `/redeem`). The server cannot see the
 * executor's records; it holds the executor to the version the person approved: an action approved
 * against version 7 of an order must not run against version 8 (docs/audit.md "The world moves").
 * The executor should then execute conditionally on that same version (`… WHERE version = 7`), so
 * nothing moves between this check and the write.
 *
 * @param details - the stored, approved action.
 * @param currentVersions - record → version, as the executor read them; records no precondition names are ignored.
 * @throws CountersignError `stale_record` (409) naming the records whose version is missing or different, in `records`.
 */
export function checkPreconditions(details: AuthorizationDetails, currentVersions: Record<string, string> = {}): void {
  const stale = details
    .map((detail) => detail.precondition)
    .filter((precondition) => precondition !== undefined)
    .filter((precondition) => !Object.hasOwn(currentVersions, precondition.record) || currentVersions[precondition.record] !== precondition.version)
    .map((precondition) => precondition.record);
  if (stale.length > 0) {
    const records = [...new Set(stale)];
    throw new CountersignError('stale_record', `The approved action depends on a version of ${records.join(', ')} that is no longer current.`, { body: { records } });
  }
}
