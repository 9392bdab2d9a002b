/** Anything `h()` accepts as a child: strings become text nodes, never markup. */
export type Child = Node | string | number | null | undefined | false;

/** Properties of an element built by {@link h}. */
export interface ElementProps {
  class?: string;
  /** Rendered as `data-testid`: the stable handle the browser tests use. */
  testid?: string;
  /** Attributes; `false`, `null` and `undefined` leave the attribute out, `true` sets it empty. */
  attrs?: Record<string, string | number | boolean | null | undefined>;
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
}

/**
 * Builds an element. Every string child is a text node, so data from the server is never parsed
 * as HTML: there is no `innerHTML` anywhere in the app (a request's purpose is attacker-chosen text).
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: ElementProps = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.class) element.className = props.class;
  if (props.testid) element.dataset.testid = props.testid;
  for (const [name, value] of Object.entries(props.attrs ?? {})) {
    if (value === false || value === null || value === undefined) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [type, listener] of Object.entries(props.on ?? {})) {
    element.addEventListener(type, listener as EventListener);
  }
  append(element, ...children);
  return element;
}

/** Appends children to `parent`, strings as text. */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
}

/** Sets a screen's document title. */
export function setTitle(title: string | null): void {
  document.title = title ? `${title} – Countersign` : 'Countersign';
}

/**
 * Moves focus to a screen's heading after a route change, so screen readers announce the new
 * screen; never to a button (Approve must not be one tap or Enter key away on arrival).
 */
export function focusHeading(root: HTMLElement): void {
  const heading = root.querySelector<HTMLElement>('h1');
  if (!heading) return;
  heading.tabIndex = -1;
  heading.focus({ preventScroll: true });
}
