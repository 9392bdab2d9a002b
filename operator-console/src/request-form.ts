// The form of the console's "Send a test approval request" panel, kept out of index.html so the
// page stays small. Static markup written here, never a value from the server (those go in as
// text, see dom.ts).
import { $ } from './dom.ts';

/** The request form (`#request-form`), as it stood in index.html: the fields send-form.ts reads. */
const REQUEST_FORM = `
<form id="request-form" class="stack" novalidate>
  <div class="grid">
    <div class="field">
      <label for="login-hint">User (sub)</label>
      <input id="login-hint" name="login_hint" type="text" autocomplete="off" spellcheck="false" required value="demo" data-testid="login-hint" />
    </div>
    <div class="field">
      <label for="tenant">Tenant</label>
      <input id="tenant" name="tenant" type="text" autocomplete="off" spellcheck="false" required value="default" data-testid="tenant" />
    </div>
    <div class="field field-wide">
      <label for="action-type">Action</label>
      <select id="action-type" name="action_type" data-testid="action-type">
        <option value="payment" selected>Payment</option>
        <option value="deletion">Deletion (sample)</option>
        <option value="message">Message to many (sample)</option>
        <option value="access_change">Access change (sample)</option>
        <option value="record_change">Record change (sample)</option>
        <option value="tool_call">Tool call (MCP)</option>
      </select>
    </div>
    <div class="field field-wide sample" data-action="sample" role="group" aria-labelledby="sample-heading" data-testid="sample-preview" hidden>
      <p class="sample-heading" id="sample-heading">The sample action, built by the server: what the person will see</p>
      <p class="sample-title" id="sample-title" data-testid="sample-title"></p>
      <ul class="sample-warnings" id="sample-warnings" data-testid="sample-warnings"></ul>
      <dl class="facts" id="sample-fields" data-testid="sample-fields"></dl>
      <p class="error" id="sample-error" role="alert"></p>
    </div>
    <div class="field" data-action="tool_call" hidden>
      <label for="tool-server">MCP server</label>
      <input id="tool-server" name="tool_server" type="text" autocomplete="off" spellcheck="false" value="memory" data-testid="tool-server" />
    </div>
    <div class="field" data-action="tool_call" hidden>
      <label for="tool-name">Tool</label>
      <input id="tool-name" name="tool_name" type="text" autocomplete="off" spellcheck="false" value="delete_entities" data-testid="tool-name" />
    </div>
    <div class="field field-wide" data-action="tool_call" hidden>
      <label for="tool-arguments">Arguments (a JSON object)</label>
      <textarea id="tool-arguments" name="tool_arguments" rows="3" spellcheck="false" data-testid="tool-arguments">{"entityNames": ["Alice"]}</textarea>
    </div>
    <div class="field" data-action="tool_call" hidden>
      <label><input name="tool_destructive" type="checkbox" checked data-testid="tool-destructive" /> Destructive (destructiveHint)</label>
    </div>
    <div class="field" data-action="payment">
      <label for="amount">Amount, in minor units</label>
      <input id="amount" name="amount_minor" type="text" inputmode="numeric" pattern="[0-9]+" required value="49000" aria-describedby="amount-hint" data-testid="amount" />
      <p class="hint" id="amount-hint">Cents for EUR: 49000 is EUR 490.00.</p>
    </div>
    <div class="field" data-action="payment">
      <label for="currency">Currency (ISO 4217)</label>
      <input id="currency" name="currency" type="text" autocomplete="off" maxlength="3" required value="EUR" data-testid="currency" />
    </div>
    <div class="field" data-action="payment">
      <label for="payee-name">Payee name</label>
      <input id="payee-name" name="payee_name" type="text" autocomplete="off" required value="ACME Ltd" data-testid="payee-name" />
    </div>
    <div class="field" data-action="payment">
      <label for="payee-id">Payee account</label>
      <input id="payee-id" name="payee_id" type="text" autocomplete="off" spellcheck="false" required value="acct_77" data-testid="payee-id" />
    </div>
    <div class="field field-wide" data-action="payment">
      <label for="purpose">Purpose</label>
      <input id="purpose" name="purpose" type="text" autocomplete="off" required value="Console test payment" data-testid="purpose" />
    </div>
    <div class="field">
      <label for="binding-message">Binding message</label>
      <input id="binding-message" name="binding_message" type="text" autocomplete="off" maxlength="64" data-testid="binding-message" />
    </div>
    <div class="field">
      <label for="expiry">Expires in (seconds)</label>
      <input id="expiry" name="requested_expiry" type="text" inputmode="numeric" pattern="[0-9]+" required value="300" data-testid="expiry" />
    </div>
  </div>
  <button type="submit" class="btn btn-primary" data-testid="send">Send test request</button>
  <p class="error" id="send-error" role="alert" data-testid="send-error"></p>
</form>
`;

/**
 * Puts the request form into its panel, after the panel's heading and hint (`#send-title`). Run
 * first at start, before anything looks up the form's fields. Parsed in a `<template>`: inert
 * until it is in the page.
 * @throws Error when the page has no `#send-title` panel (the page and the code disagree).
 */
export function mountRequestForm(): void {
  const template = document.createElement('template');
  template.innerHTML = REQUEST_FORM.trim();
  const panel = $('send-title').parentElement;
  if (!panel) throw new Error('the console page has no panel around #send-title');
  panel.append(template.content);
}
