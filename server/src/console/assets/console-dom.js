// DOM helpers of the operator console: every value from the server goes into the page as text
// (textContent, text nodes), never as markup.

/** The element of the console page with this id; throws when the page has none. */
export const $ = (id) => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the console page has no #${id}`);
  return element;
};

/** Builds an element whose children are elements or text (never markup). */
export function el(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'class') element.className = value;
    else if (name === 'testid') element.dataset.testid = value;
    else if (name === 'onclick') element.addEventListener('click', value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    element.append(typeof child === 'string' || typeof child === 'number' ? document.createTextNode(String(child)) : child);
  }
  return element;
}
