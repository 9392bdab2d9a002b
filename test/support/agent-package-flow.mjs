// A plain Node.js script, as a user of the installed `@countersign/agent` writes it: no
// TypeScript, no tsx, no workspace. test/agent-package.test.ts copies it into a project that
// installed the packed tarballs and runs it with the machine's Node 20.
//
// FLOW_CONFIG (JSON, from the environment so no secret is on the command line):
//   { issuer, clientId, auth, login_hint, authorization_details, reference }
// Prints one JSON line `{"step":"asked","auth_req_id":…}` once the request is made (the test
// approves it then), and one `{"step":"done",…}` line at the end.
import { createAgentClient } from '@countersign/agent';

const config = JSON.parse(process.env.FLOW_CONFIG ?? '{}');
const print = (line) => process.stdout.write(`${JSON.stringify(line)}\n`);

const countersign = createAgentClient({ issuer: config.issuer, clientId: config.clientId, auth: config.auth });
const details = config.authorization_details;

const asked = await countersign.requestApproval({ login_hint: config.login_hint, authorization_details: details, binding_message: 'Refund 1042' });
print({ step: 'asked', auth_req_id: asked.auth_req_id, interval: asked.interval });

const decision = await countersign.waitForDecision(asked.auth_req_id, { interval: asked.interval, timeoutSeconds: 60 });
if (decision.status !== 'approved') {
  print({ step: 'done', node: process.version, decision: decision.status });
} else {
  const redemption = await countersign.redeem(decision.token.access_token, details);
  // … the refund would run here, with redemption.idempotency_key …
  await countersign.reportOutcome(redemption.redemption_id, { status: 'succeeded', reference: config.reference });
  const request = await countersign.getRequest(asked.auth_req_id);
  print({
    step: 'done',
    node: process.version,
    method: countersign.authMethod,
    decision: decision.status,
    redemption_id: redemption.redemption_id,
    idempotency_key: redemption.idempotency_key,
    auth_req_id: request.auth_req_id,
    state: request.state,
    outcome: request.outcome,
  });
}
