/** The sections the main navigation leads to. */
export type NavSection = 'inbox' | 'history' | 'mandates' | 'devices';

/**
 * Shows the app shell's main navigation (Requests, History, Mandates, Devices) for an enrolled device, with
 * `aria-current="page"` on the section on screen; hides it where there is nothing to navigate
 * (not enrolled, enrolling, offline).
 *
 * @param section - the current section; `null` hides the navigation, `'none'` shows it with no current section.
 */
export function showNav(section: NavSection | 'none' | null): void {
  const nav = document.querySelector<HTMLElement>('[data-app-nav]');
  if (!nav) return;
  nav.hidden = section === null;
  for (const link of nav.querySelectorAll<HTMLAnchorElement>('a[data-nav]')) {
    if (link.dataset.nav === section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}
