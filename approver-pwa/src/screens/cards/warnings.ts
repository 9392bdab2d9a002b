import { h } from '../../ui/dom.ts';

/**
 * What the person must not miss (`Cannot be undone`), before anything else on the card. Said in
 * words with a mark and a heavy border, never by colour alone; `role="note"` rather than `alert`:
 * the screen re-renders while it is open, and an alert would be read out again each time.
 */
export function warningNotes(warnings: readonly string[] | undefined): HTMLElement | null {
  if (!warnings || warnings.length === 0) return null;
  return h('div', { class: 'warnings' }, ...warnings.map((warning) => h('p', { class: 'warning', testid: 'warning', attrs: { role: 'note' } }, h('span', { class: 'warning-mark', attrs: { 'aria-hidden': 'true' } }, '!'), h('span', { class: 'visually-hidden' }, 'Warning: '), h('strong', {}, warning))));
}
