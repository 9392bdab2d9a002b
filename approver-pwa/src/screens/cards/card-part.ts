import type { ActionDisplay } from '@countersign/shared';
import { h } from '../../ui/dom.ts';

/**
 * What a type's structured part adds to its card: the element, and which of the server's `fields`
 * (by index) it already shows, so the card leaves those lines out. The element takes the place of
 * the first field it covers, so the server's order is kept; one that covers none comes first.
 */
export interface CardPart {
  element: HTMLElement;
  covered: ReadonlySet<number>;
}

/** The indexes of the fields whose label is one of `labels` (labels the server computes, never model text). */
export function fieldsLabelled(action: ActionDisplay, labels: readonly string[]): Set<number> {
  const covered = new Set<number>();
  action.fields.forEach((field, index) => {
    if (labels.includes(field.label)) covered.add(index);
  });
  return covered;
}

/**
 * A figure shown large, as a payment's amount is: a small label above it and a line under it.
 * `data-count` holds the exact number, for tests and for anyone copying it.
 */
export function bigFigure(options: { label: string; text: string; count: number; testid: string; under?: HTMLElement | null }): HTMLElement {
  return h('div', { class: 'amount-block' }, h('p', { class: 'amount-label' }, options.label), h('p', { class: 'amount figure', testid: options.testid, attrs: { 'data-count': options.count } }, options.text), options.under ?? null);
}

/** A labelled list (`For example`, `Named`): a small label and the items, each in code type when they are identifiers. */
export function labelledList(options: { label: string; items: readonly string[]; testid: string; code?: boolean; after?: HTMLElement | null }): HTMLElement {
  return h('div', { class: 'part-list' }, h('p', { class: 'part-label' }, options.label), h('ul', { class: options.code ? 'chip-list chip-list-code' : 'chip-list', testid: options.testid }, ...options.items.map((item) => h('li', { class: 'chip' }, item))), options.after ?? null);
}
