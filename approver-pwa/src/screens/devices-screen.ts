import type { DeviceSummary } from '@countersign/shared';
import { isApiError, listDevices, removeDevice, renameDevice } from '../api/index.ts';
import { confirmDialog } from '../ui/confirm-dialog.ts';
import { focusHeading, h, setTitle } from '../ui/dom.ts';
import { formatWhen } from '../ui/format-time.ts';
import { addDevicePanel } from './add-device-panel.ts';
import { errorBanner, errorMessage } from './messages.ts';
import type { Dispose, ScreenContext } from './screen.ts';

/** The longest device name the server takes. */
const DEVICE_NAME_MAX = 64;

/**
 * The person's devices (`#/devices`): each with its name, when it was added and last used, and
 * which one is this; rename one in place; remove one (after a confirmation: its passkey stops
 * approving anything, its notifications stop, and removing this one signs this browser out);
 * and add another device with a one-time link.
 */
export function mountDevicesScreen(ctx: ScreenContext): Dispose {
  setTitle('Devices');
  const list = h('div', { class: 'devices', attrs: { 'aria-busy': true } }, h('p', { class: 'muted' }, 'Loading your devices…'));
  const errorSlot = h('div', { class: 'slot' });
  const status = h('p', { class: 'status', testid: 'devices-status', attrs: { role: 'status' } });
  const add = addDevicePanel(ctx.loginRequired);
  ctx.root.replaceChildren(h('section', { class: 'screen', testid: 'devices-screen' }, h('h1', {}, 'Devices'), h('p', { class: 'muted' }, 'Each device approves with its own passkey. Remove one you no longer use, or have lost: it can’t approve anything after that.'), errorSlot, status, list, add.element));
  focusHeading(ctx.root);
  /** The device being renamed, if any. */
  let editing: string | null = null;
  let devices: DeviceSummary[] = [];

  async function refresh(): Promise<void> {
    try {
      devices = await listDevices(ctx.signal);
      errorSlot.replaceChildren();
      render();
    } catch (error) {
      if (ctx.signal.aborted) return;
      if (isApiError(error, 'login_required')) return ctx.loginRequired();
      errorSlot.replaceChildren(errorBanner(errorMessage(error)));
    }
  }

  function render(): void {
    list.removeAttribute('aria-busy');
    list.replaceChildren(h('ul', { class: 'device-list', attrs: { 'aria-label': 'Your devices' } }, ...devices.map((device) => h('li', {}, item(device)))));
  }

  function item(device: DeviceSummary): HTMLElement {
    const titleId = `device-${device.device_id}`;
    return h(
      'article',
      { class: 'device-item', testid: 'device-item', attrs: { 'data-device-id': device.device_id, 'data-this-device': device.this_device ? 'true' : null, 'aria-labelledby': titleId } },
      h('div', { class: 'device-head' }, h('h2', { class: 'device-name', testid: 'device-name', attrs: { id: titleId } }, device.name), device.this_device ? h('span', { class: 'badge badge-info', testid: 'this-device' }, 'This device') : null),
      h('p', { class: 'device-meta' }, `Added ${formatWhen(device.created_at)}`, h('br'), device.last_used_at ? `Passkey last used ${formatWhen(device.last_used_at)}` : 'Passkey not used yet'),
      editing === device.device_id ? renameForm(device) : actions(device),
    );
  }

  function actions(device: DeviceSummary): HTMLElement {
    return h(
      'div',
      { class: 'device-actions' },
      h('button', { class: 'btn btn-secondary btn-small', testid: 'rename-device', attrs: { type: 'button', 'aria-label': `Rename ${device.name}` }, on: { click: () => startRename(device) } }, 'Rename'),
      h('button', { class: 'btn btn-deny btn-small', testid: 'remove-device', attrs: { type: 'button', 'aria-label': `Remove ${device.name}` }, on: { click: () => void remove(device) } }, 'Remove'),
    );
  }

  function startRename(device: DeviceSummary): void {
    editing = device.device_id;
    render();
    list.querySelector<HTMLInputElement>('[data-testid="device-name-input"]')?.select();
  }

  function renameForm(device: DeviceSummary): HTMLElement {
    const inputId = `rename-${device.device_id}`;
    const input = h('input', { testid: 'device-name-input', attrs: { id: inputId, type: 'text', value: device.name, maxlength: DEVICE_NAME_MAX, autocomplete: 'off', enterkeyhint: 'done' } });
    const cancel = () => {
      editing = null;
      render();
      list.querySelector<HTMLElement>(`[data-device-id="${CSS.escape(device.device_id)}"] [data-testid="rename-device"]`)?.focus();
    };
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') cancel();
    });
    return h(
      'form',
      {
        class: 'rename-form',
        attrs: { novalidate: true },
        on: {
          submit: (event) => {
            event.preventDefault();
            void saveName(device, input.value);
          },
        },
      },
      h('div', { class: 'field' }, h('label', { attrs: { for: inputId } }, 'New name'), input),
      h('div', { class: 'device-actions' }, h('button', { class: 'btn btn-primary btn-small', testid: 'save-name', attrs: { type: 'submit' } }, 'Save'), h('button', { class: 'btn btn-secondary btn-small', testid: 'cancel-rename', attrs: { type: 'button' }, on: { click: cancel } }, 'Cancel')),
    );
  }

  async function saveName(device: DeviceSummary, value: string): Promise<void> {
    const name = value.normalize('NFC').trim();
    if (!name) {
      errorSlot.replaceChildren(errorBanner('Give the device a name.'));
      return;
    }
    try {
      await renameDevice(device.device_id, name.slice(0, DEVICE_NAME_MAX));
      editing = null;
      status.textContent = `Renamed to ${name}.`;
      await refresh();
      list.querySelector<HTMLElement>(`[data-device-id="${CSS.escape(device.device_id)}"] [data-testid="rename-device"]`)?.focus();
    } catch (error) {
      if (isApiError(error, 'login_required')) return ctx.loginRequired();
      errorSlot.replaceChildren(errorBanner(errorMessage(error)));
    }
  }

  async function remove(device: DeviceSummary): Promise<void> {
    const confirmed = await confirmDialog({
      parent: ctx.root,
      testid: 'remove-dialog',
      title: `Remove ${device.name}?`,
      body: device.this_device
        ? [
            'This is the device you are using. Its passkey will no longer approve anything, it stops getting notifications, and this browser is signed out.',
            devices.length === 1 ? 'It is your only device: to approve requests again you will need a new enrollment link from whoever runs Countersign for you.' : 'Your other devices keep working.',
          ]
        : ['Its passkey will no longer approve anything, it stops getting notifications, and it is signed out.', 'To use it again, add it again with a new link.'],
      confirmLabel: 'Remove',
      danger: true,
    });
    if (!confirmed || ctx.signal.aborted) return;
    try {
      await removeDevice(device.device_id);
      if (device.this_device) return ctx.loginRequired();
      status.textContent = `${device.name} was removed.`;
      await refresh();
      focusHeading(ctx.root);
    } catch (error) {
      if (isApiError(error, 'login_required')) return ctx.loginRequired();
      errorSlot.replaceChildren(errorBanner(errorMessage(error)));
    }
  }

  // A device removed elsewhere (by an operator, or on another device) leaves the list at once.
  const stopDevices = ctx.events.onDevice(() => void refresh());
  void refresh();
  return () => {
    stopDevices();
    add.dispose();
    ctx.root.querySelector('dialog')?.remove();
  };
}
