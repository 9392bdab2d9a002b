// The send form: a test approval request to a user, from the tenant's built-in console client
// (`POST /api/admin/test-requests`): a payment or a tool call written out here, or a sample the
// server builds (samples.ts). The sent request is then watched (watch.ts).
import type { JsonObject, PaymentDetails, ToolCallDetails } from '@countersign/shared';
import type { SampleType, TestRequestCreated } from './admin-types.ts';
import { api, describeError } from './api.ts';
import { $, $value } from './dom.ts';
import { refreshPending } from './pending.ts';
import { isSampleType, showActionFields } from './samples.ts';
import { handleAuthError } from './session.ts';
import { currentTenant } from './tenant.ts';
import { watch } from './watch.ts';

/** The body of `POST /test-requests` (server/src/console/test-requests.ts): an action written out, or a sample named. */
type TestRequestBody = {
  login_hint: string;
  tenant: string;
  requested_expiry: number;
  binding_message?: string;
} & ({ authorization_details: [PaymentDetails | ToolCallDetails] } | { sample: SampleType });

/** One trimmed text field of the form, by name. */
type Read = (name: string) => string;

/** The tool call the form describes, or an error message. */
function toolCallAction(value: Read, form: FormData): ToolCallDetails | string {
  let args: unknown;
  try {
    args = JSON.parse(value('tool_arguments'));
  } catch {
    return 'The arguments must be JSON.';
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return 'The arguments must be a JSON object.';
  return {
    type: 'tool_call',
    transaction_id: `mcp_console_${crypto.randomUUID()}`,
    server: value('tool_server'),
    tool: value('tool_name'),
    arguments: args as JsonObject,
    annotations: { destructiveHint: form.get('tool_destructive') === 'on' },
  };
}

/** The payment the form describes. */
function paymentAction(value: Read): PaymentDetails {
  return {
    type: 'payment',
    // A fresh idempotency key each time: a second send is a second request.
    transaction_id: `txn_console_${crypto.randomUUID()}`,
    amount_minor: Number(value('amount_minor')),
    currency: value('currency').toUpperCase(),
    payee: { id: value('payee_id'), name: value('payee_name') },
    purpose: value('purpose'),
  };
}

/** The body the form describes, or the error message to show. */
function requestBody(form: FormData): TestRequestBody | string {
  const value: Read = (name) => String(form.get(name) ?? '').trim();
  const type = value('action_type');
  const expiry = value('requested_expiry');
  if ((type === 'payment' && !/^[0-9]+$/.test(value('amount_minor'))) || !/^[0-9]+$/.test(expiry)) return 'The amount and the expiry must be whole numbers.';
  const common = { login_hint: value('login_hint'), tenant: currentTenant(), requested_expiry: Number(expiry), ...(value('binding_message') ? { binding_message: value('binding_message') } : {}) };
  if (isSampleType(type)) return { ...common, sample: type };
  const action = type === 'tool_call' ? toolCallAction(value, form) : paymentAction(value);
  if (typeof action === 'string') return action;
  return { ...common, authorization_details: [action] };
}

/** Wires the send form: its action picker and its submit. */
export function startSendForm(): void {
  $value('action-type').addEventListener('change', showActionFields);
  showActionFields();
  const formElement = $('request-form', HTMLFormElement);
  formElement.addEventListener('submit', async (event) => {
    event.preventDefault();
    $('send-error').textContent = '';
    const body = requestBody(new FormData(formElement));
    if (typeof body === 'string') {
      $('send-error').textContent = body;
      return;
    }
    const button = formElement.querySelector<HTMLButtonElement>('button[type=submit]')!;
    button.disabled = true;
    try {
      const created = await api<TestRequestCreated>('POST', '/test-requests', body);
      watch(created.auth_req_id, body.tenant, created);
      void refreshPending(currentTenant());
    } catch (error) {
      if (!handleAuthError(error)) $('send-error').textContent = describeError(error);
    } finally {
      button.disabled = false;
    }
  });
}
