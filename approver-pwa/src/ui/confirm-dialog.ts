import { h } from './dom.ts';

/** What {@link confirmDialog} asks. */
export interface ConfirmOptions {
  /** The dialog's heading, a question: "Remove this device?". */
  title: string;
  /** Paragraphs under it: what will happen, plainly. */
  body: string[];
  confirmLabel: string;
  cancelLabel?: string;
  /** A destructive action: the confirm button is drawn as one. */
  danger?: boolean;
  /** `data-testid` of the dialog; its buttons get `<testid>-confirm` and `<testid>-cancel`. */
  testid: string;
  /** Where the dialog is attached (inside `<main>`, so it belongs to the page's landmarks). */
  parent: HTMLElement;
}

/**
 * Asks the person to confirm with a modal `<dialog>`: the browser traps the focus in it, Escape
 * cancels, and the focus goes back to whatever opened it. The focus starts on Cancel, so Enter or
 * a stray tap never confirms a destructive action by accident.
 *
 * @returns true when the person confirmed.
 */
export function confirmDialog(options: ConfirmOptions): Promise<boolean> {
  const titleId = `${options.testid}-title`;
  const bodyId = `${options.testid}-body`;
  const dialog = h(
    'dialog',
    { class: 'dialog', testid: options.testid, attrs: { 'aria-labelledby': titleId, 'aria-describedby': bodyId } },
    h(
      'form',
      { class: 'dialog-form', attrs: { method: 'dialog' } },
      h('h2', { attrs: { id: titleId } }, options.title),
      h('div', { class: 'stack', attrs: { id: bodyId } }, ...options.body.map((text) => h('p', {}, text))),
      h(
        'div',
        { class: 'dialog-buttons' },
        h('button', { class: 'btn btn-secondary', testid: `${options.testid}-cancel`, attrs: { value: 'cancel', autofocus: true } }, options.cancelLabel ?? 'Cancel'),
        h('button', { class: `btn ${options.danger ? 'btn-danger' : 'btn-primary'}`, testid: `${options.testid}-confirm`, attrs: { value: 'confirm' } }, options.confirmLabel),
      ),
    ),
  );
  options.parent.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        resolve(dialog.returnValue === 'confirm');
        dialog.remove();
      },
      { once: true },
    );
    dialog.showModal();
  });
}
