import qrcode from 'qrcode-terminal';
import { parseOptions } from '../parse-options.ts';
import { printJson, UsageError, type Command } from '../command.ts';
import { formatSeconds } from '../output.ts';

interface Enrollment {
  enrollment_code: string;
  enrollment_url: string;
  expires_in: number;
}

/**
 * `enroll <sub> [--tenant <t>] [--no-qr]`: creates a one-time enrollment link for the user and
 * prints it on stdout, and a QR code of it on stderr for the phone's camera. Split that way,
 * `link=$(… enroll alice)` captures just the link while the person at the terminal still sees
 * the code.
 */
export const enroll: Command = async (args, ctx) => {
  const { values, positionals } = parseOptions({ args, options: { tenant: { type: 'string' }, 'no-qr': { type: 'boolean' } }, allowPositionals: true, strict: true });
  const [sub, ...extra] = positionals;
  if (!sub || extra.length > 0) throw new UsageError('enroll needs exactly one <sub>');
  const { body } = await ctx.api.call<Enrollment>('POST', `/users/${encodeURIComponent(sub)}/enrollments`, values.tenant ? { tenant: values.tenant } : undefined);
  if (ctx.json) {
    printJson(ctx, body);
    return 0;
  }
  ctx.output.out(body.enrollment_url);
  const expires = `It works once and expires in ${formatSeconds(body.expires_in)}.`;
  if (!phoneCanOpen(body.enrollment_url)) {
    // A code the phone scans and then cannot open only wastes the person's time: say why instead.
    ctx.output.err(`No QR code: this link is on ${new URL(body.enrollment_url).hostname}, which a phone cannot open (on the phone, that is the phone itself). Open it in a browser on this machine, or start the server with a PUBLIC_URL the phone reaches (README "On a real phone"). ${expires}`);
    return 0;
  }
  if (!values['no-qr']) ctx.output.err(qrCode(body.enrollment_url));
  ctx.output.err(`Open the link on the phone (or scan the code). ${expires}`);
  return 0;
};

/**
 * Whether a phone could open `url`: not when its host names the machine it is opened on
 * (`localhost`, `*.localhost`, a loopback address), which on the phone is the phone.
 * @see RFC 6761 §6.3 (localhost); RFC 6890 (127.0.0.0/8, ::1)
 */
export function phoneCanOpen(url: string): boolean {
  const host = new URL(url).hostname.toLowerCase();
  return !(host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '[::1]');
}

/** The link as a QR code of half-height blocks (readable by phone cameras from a terminal). */
export function qrCode(text: string): string {
  let drawn = '';
  qrcode.generate(text, { small: true }, (qr) => {
    drawn = qr;
  });
  return drawn;
}
