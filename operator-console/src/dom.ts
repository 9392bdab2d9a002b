// DOM helpers of the operator console: every value from the server goes into the page as text
// (textContent, text nodes), never as markup.

/**
 * The element of the console page with this id, as `type` (HTMLElement by default).
 * @throws Error when the page has no such element, or it is not a `type`: the page and the code disagree.
 */
export function $<T extends HTMLElement = HTMLElement>(id: string, type?: abstract new () => T): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the console page has no #${id}`);
  if (type && !(element instanceof type)) throw new Error(`#${id} is not a ${type.name}`);
  return element as T;
}

/** The value of the console page's input, select or textarea with this id. */
export function $value(id: string): HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement {
  const element = $(id);
  if (element instanceof HTMLInputElement || element instanceof HTMLSelectElement || element instanceof HTMLTextAreaElement) return element;
  throw new Error(`#${id} is not a form field`);
}

/** An element's attributes: `class`, `onclick` (a listener), any other as a string attribute; null, undefined and false leave it out. */
export type Props = Record<string, string | number | boolean | null | undefined | (() => void)>;

/** What an element holds: elements or text (never markup); null, undefined and false are skipped. */
export type Child = Node | string | number | null | undefined | false;

/** Builds an element whose children are elements or text (never markup). */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    // Only `onclick` takes a function: a listener, never an attribute of script text.
    if (typeof value === 'function') {
      if (name === 'onclick') element.addEventListener('click', value);
    } else if (name === 'class') element.className = String(value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    element.append(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
  return element;
}
