import { requestKeys } from './keys-requests.ts';
import { peopleKeys } from './keys-people.ts';
import { auditKeys } from './keys-audit.ts';
import { deploymentKeys } from './keys-deployment.ts';

/**
 * The logical keys of Countersign (docs/storage-layout.md says what each holds, and which keys
 * earlier versions left). Tenancy is part of every key (docs/design.md guarantee 5), and
 * the `{…}` hash tag groups what one atomic operation or one request touches into one Redis
 * Cluster slot. Tenants, subjects and ids are restricted to characters without braces, so a
 * caller cannot move a key into another tag.
 */
export const keys = {
  ...requestKeys,
  ...peopleKeys,
  ...auditKeys,
  ...deploymentKeys,
} as const;
