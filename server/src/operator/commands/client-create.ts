import { parseOptions } from '../parse-options.ts';
import { printJson, UsageError, type Command } from '../command.ts';
import { keyValueLines } from '../output.ts';

/** The admin API's answer for a new client (the secret only for secret-based clients). */
interface CreatedClient {
  client_id: string;
  client_secret?: string;
  name: string;
  tenant: string;
  token_delivery_mode: string;
  backchannel_client_notification_endpoint?: string;
}

/**
 * `client create --name <name> [--mode poll|ping|push] [--endpoint <url>] [--tenant <t>]`:
 * registers a client and prints its id and secret. The secret is shown this once (the server
 * keeps only its hash), so the note saying so goes to stderr and the values to stdout.
 */
export const clientCreate: Command = async (args, ctx) => {
  const { values } = parseOptions({
    args,
    options: { name: { type: 'string' }, mode: { type: 'string' }, endpoint: { type: 'string' }, tenant: { type: 'string' } },
    strict: true,
  });
  if (!values.name) throw new UsageError('client create needs --name');
  if (values.mode && !['poll', 'ping', 'push'].includes(values.mode)) throw new UsageError('--mode must be poll, ping or push');
  if (values.mode && values.mode !== 'poll' && !values.endpoint) throw new UsageError(`--mode ${values.mode} needs --endpoint (the client's notification endpoint)`);
  const { body } = await ctx.api.call<CreatedClient>('POST', '/clients', {
    name: values.name,
    ...(values.mode ? { token_delivery_mode: values.mode } : {}),
    ...(values.endpoint ? { backchannel_client_notification_endpoint: values.endpoint } : {}),
    ...(values.tenant ? { tenant: values.tenant } : {}),
  });
  if (ctx.json) printJson(ctx, body);
  else {
    for (const line of keyValueLines(
      [
        ['client_id', body.client_id],
        ['client_secret', body.client_secret],
        ['name', body.name],
        ['tenant', body.tenant],
        ['mode', body.token_delivery_mode],
        ['endpoint', body.backchannel_client_notification_endpoint],
      ],
      ctx.output.tty,
    )) {
      ctx.output.out(line);
    }
  }
  if (body.client_secret) ctx.output.err('Store the client secret now: it is shown only this once.');
  return 0;
};
