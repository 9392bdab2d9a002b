import type { DisplayMember, DisplayValue } from '@countersign/shared';
import { h } from '../ui/dom.ts';

let folds = 0;

/**
 * A folded string: its preview, and a button that shows all of it (and folds it again). A real
 * `<button>` with `aria-expanded` and `aria-controls`, so it is reached by keyboard and a screen
 * reader says what it does; the full text is the server's, not re-read from the preview.
 */
function foldedText(value: Extract<DisplayValue, { kind: 'text' }>): HTMLElement {
  const id = `arg-text-${++folds}`;
  const text = h('span', { class: 'arg-text', testid: 'arg-text', attrs: { id } }, value.preview);
  const characters = [...value.full].length;
  const button = h(
    'button',
    {
      class: 'btn-fold',
      testid: 'show-all',
      attrs: { type: 'button', 'aria-expanded': 'false', 'aria-controls': id },
      on: {
        click: () => {
          const open = button.getAttribute('aria-expanded') !== 'true';
          text.textContent = open ? value.full : value.preview;
          button.setAttribute('aria-expanded', String(open));
          button.textContent = open ? 'Show less' : `Show all ${characters} characters`;
        },
      },
    },
    `Show all ${characters} characters`,
  );
  return h('span', { class: 'arg-folded' }, text, button);
}

/** One argument value, nested values as nested lists (see `DisplayValue` in shared). */
export function argumentValue(value: DisplayValue): HTMLElement {
  switch (value.kind) {
    case 'text':
      if (value.folded) return foldedText(value);
      return value.full === '' ? h('span', { class: 'arg-empty' }, '(empty text)') : h('span', { class: 'arg-text', testid: 'arg-text' }, value.full);
    case 'list':
      return value.items.length === 0 ? h('span', { class: 'arg-empty' }, '(empty list)') : h('ol', { class: 'arg-list', attrs: { start: 1 } }, ...value.items.map((item) => h('li', {}, argumentValue(item))));
    case 'object':
      return argumentMembers(value.members);
    default:
      return h('code', { class: 'arg-scalar', attrs: { 'data-kind': value.kind } }, value.text);
  }
}

/** An object's members as a description list: each name, then its value. */
export function argumentMembers(members: DisplayMember[]): HTMLElement {
  if (members.length === 0) return h('span', { class: 'arg-empty' }, '(none)');
  return h('dl', { class: 'arg-object' }, ...members.map((member) => h('div', { class: 'arg-row', attrs: { 'data-name': member.name } }, h('dt', {}, member.name), h('dd', {}, argumentValue(member.value)))));
}
