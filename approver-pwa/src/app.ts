import type { DeviceSession } from './api/index.ts';
import { DEVICE_EVENTS_URL } from './api/index.ts';
import { noteDeviceRemoval } from './live/device-removals.ts';
import { createRequestEvents } from './live/request-events.ts';
import type { Route } from './router.ts';
import { mountDevicesScreen } from './screens/devices-screen.ts';
import { mountEnrollScreen } from './screens/enroll-screen.ts';
import { mountHistoryScreen } from './screens/history-screen.ts';
import { mountInboxScreen } from './screens/inbox-screen.ts';
import { mountMandateScreen } from './screens/mandates/mandate-screen.ts';
import { mountMandatesScreen } from './screens/mandates/mandates-screen.ts';
import { mountRequestScreen } from './screens/request-screen.ts';
import type { Dispose, ScreenContext } from './screens/screen.ts';
import { showLoadError, showNotEnrolled, showNotFound } from './screens/status-screens.ts';
import { clearSession, loadSession, setSession } from './session.ts';
import { showNav } from './ui/app-nav.ts';
import { setFlash } from './ui/flash.ts';

/**
 * Mounts the screen for each route into `root`, disposing the previous one first. Screens of an
 * enrolled device wait for the session; without one they show "This device is not enrolled". The
 * main navigation (Requests, History, Mandates, Devices) shows on the enrolled device's list
 * screens; a request's screen keeps to its one task, with a way back; a mandate's screen belongs
 * to Mandates.
 *
 * While an enrolled screen is up, the live stream's device removals are heard here, whatever the
 * screen: the removal of this device signs the app out at once (to "This device was removed",
 * not an error on the next call); that of another device is noted for the inbox's banner.
 */
export function createApp(root: HTMLElement): (route: Route) => void {
  const events = createRequestEvents({ url: DEVICE_EVENTS_URL });
  let dispose: Dispose | undefined;
  let controller: AbortController | undefined;
  let generation = 0;

  let stopDevices: (() => void) | undefined;

  const leave = () => {
    controller?.abort();
    dispose?.();
    dispose = undefined;
    stopDevices?.();
    stopDevices = undefined;
  };

  const onEnrolled = (session: DeviceSession) => {
    setSession(session);
    setFlash(`This device is set up. Requests for ${session.user.display_name || session.user.sub} will appear here.`);
    // Replace, not push: the enrollment code leaves this tab's history.
    location.replace('#/');
  };

  async function show(route: Route): Promise<void> {
    leave();
    const current = ++generation;
    controller = new AbortController();
    window.scrollTo(0, 0);
    showNav(null);
    switch (route.name) {
      case 'not_found':
        return showNotFound(root);
      case 'enroll':
        dispose = mountEnrollScreen(root, route.code, onEnrolled);
        return;
      case 'inbox':
      case 'request':
      case 'history':
      case 'devices':
      case 'mandates':
      case 'mandate':
        break;
    }
    let session: DeviceSession | null;
    try {
      session = await loadSession();
    } catch (error) {
      if (current === generation) dispose = showLoadError(root, error, () => void show(route));
      return;
    }
    if (current !== generation) return;
    if (!session) return showNotEnrolled(root);
    const signOut = (removedBy?: 'operator' | 'person') => {
      if (current !== generation) return;
      leave();
      clearSession();
      showNav(null);
      showNotEnrolled(root, removedBy);
    };
    const ctx: ScreenContext = { root, signal: controller.signal, session, events, loginRequired: () => signOut() };
    showNav(route.name === 'request' ? null : route.name === 'mandate' ? 'mandates' : route.name);
    dispose = mount(ctx, route);
    stopDevices = events.onDevice((event) => {
      // Removed from this device itself (the Devices screen): that screen signs out as it always has.
      if (event.this_device) signOut(event.by_this_device ? undefined : event.by);
      else if (!event.by_this_device) noteDeviceRemoval(event);
    });
  }

  function mount(ctx: ScreenContext, route: Extract<Route, { name: 'inbox' | 'request' | 'history' | 'devices' | 'mandates' | 'mandate' }>): Dispose {
    switch (route.name) {
      case 'inbox':
        return mountInboxScreen(ctx);
      case 'request':
        return mountRequestScreen(ctx, route.authReqId);
      case 'history':
        return mountHistoryScreen(ctx);
      case 'devices':
        return mountDevicesScreen(ctx);
      case 'mandates':
        return mountMandatesScreen(ctx);
      case 'mandate':
        return mountMandateScreen(ctx, route.authReqId);
    }
  }

  return (route) => void show(route);
}
