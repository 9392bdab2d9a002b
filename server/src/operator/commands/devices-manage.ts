import { parseOptions } from '../parse-options.ts';
import { printJson, segment, tenantQuery, UsageError, type Command } from '../command.ts';
import { tableLines } from '../output.ts';

/** A device as the admin API shows it (`OperatorDeviceView`). */
interface DeviceView {
  device_id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  push_subscriptions: number;
}

/** `devices list <sub> [--tenant <t>]`: the user's devices, oldest first: `device_id, name, created, last used, push subscriptions`. */
export const devicesList: Command = async (args, ctx) => {
  const { values, positionals } = parseOptions({ args, options: { tenant: { type: 'string' } }, allowPositionals: true, strict: true });
  const [sub, ...extra] = positionals;
  if (!sub || extra.length > 0) throw new UsageError('devices list needs exactly one <sub>');
  const { body } = await ctx.api.call<{ devices: DeviceView[] }>('GET', `/users/${segment(sub)}/devices${tenantQuery(values.tenant)}`);
  if (ctx.json) printJson(ctx, body);
  else if (body.devices.length === 0) ctx.output.err(`${sub} has no devices.`);
  else {
    const rows = body.devices.map((device) => [device.device_id, device.name, device.created_at, device.last_used_at ?? '', device.push_subscriptions]);
    for (const line of tableLines(['DEVICE_ID', 'NAME', 'CREATED', 'LAST_USED', 'PUSH'], rows, ctx.output.tty)) ctx.output.out(line);
  }
  return 0;
};

/**
 * `device revoke <sub> <device_id> [--tenant <t>]`: removes a lost device (its passkey and push
 * subscriptions); the user's other devices are told by push.
 */
export const deviceRevoke: Command = async (args, ctx) => {
  const { values, positionals } = parseOptions({ args, options: { tenant: { type: 'string' } }, allowPositionals: true, strict: true });
  const [sub, deviceId, ...extra] = positionals;
  if (!sub || !deviceId || extra.length > 0) throw new UsageError('device revoke needs a <sub> and a <device_id>');
  const { body } = await ctx.api.call<{ device_id: string; notified: number }>('DELETE', `/users/${segment(sub)}/devices/${segment(deviceId)}${tenantQuery(values.tenant)}`);
  if (ctx.json) printJson(ctx, body);
  else ctx.output.out(body.device_id);
  ctx.output.err(`Removed ${body.device_id} from ${sub}; ${body.notified} of their other push subscriptions were told.`);
  return 0;
};
