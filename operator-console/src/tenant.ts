import { $value } from './dom.ts';

/** The tenant the console works in: the send form's tenant field, `default` when empty. */
export function currentTenant(): string {
  return $value('tenant').value.trim() || 'default';
}
