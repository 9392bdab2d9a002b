import type { ActionDisplay, DisplayAccess } from '@countersign/shared';
import { h } from '../../ui/dom.ts';
import { fieldsLabelled, type CardPart } from './card-part.ts';

/** The access change's lines this part shows itself (access-change.ts in shared). */
const COVERED = ['Change', 'Who', 'On', 'Role now', 'Role after'];

/** The kind of change in words, as the server's `Change` line says it. */
const KIND_WORDS: Record<DisplayAccess['kind'], string> = { grant: 'Grant of a role', change: 'Change of role', revoke: 'Revocation of a role' };

/**
 * An access change: grant, change or revocation said in words; who, on what; then the role now
 * and after side by side, `viewer → admin` (the arrow is for the eye; a screen reader hears
 * "Now viewer, After admin"). No role is said as such, never left blank.
 */
export function accessPart(action: ActionDisplay): CardPart | null {
  const access = action.access;
  if (!access) return null;
  const element = h(
    'div',
    { class: 'part part-access', testid: 'access', attrs: { 'data-kind': access.kind } },
    h('p', { class: `access-kind access-kind-${access.kind}`, testid: 'access-kind' }, KIND_WORDS[access.kind]),
    h('dl', { class: 'fields' }, h('div', { class: 'field-row' }, h('dt', {}, 'Who'), h('dd', { testid: 'access-principal' }, access.principal)), h('div', { class: 'field-row' }, h('dt', {}, 'On'), h('dd', { testid: 'access-resource' }, access.resource))),
    h('div', { class: 'role-change', testid: 'role-change', attrs: { role: 'group', 'aria-label': 'Role' } }, roleSide('Now', access.from_role, 'role-from', 'No role'), h('span', { class: 'role-arrow', attrs: { 'aria-hidden': 'true' } }, '→'), roleSide('After', access.to_role, 'role-to', 'No access')),
  );
  return { element, covered: fieldsLabelled(action, COVERED) };
}

function roleSide(caption: string, role: string | null, testid: string, none: string): HTMLElement {
  return h('div', { class: 'role-side' }, h('span', { class: 'role-caption' }, caption), h('span', { class: role === null ? 'role role-none' : 'role', testid, attrs: { 'data-role': role ?? '' } }, role ?? none));
}
