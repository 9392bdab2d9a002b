import { describe, expect, it } from 'vitest';
import { keys } from './keys.ts';

// The key strings are the storage layout (docs/storage-layout.md): a changed string strands
// every record written under the old one. Each key is pinned here literally, so that moving the
// key functions between files (`keys-*.ts`) cannot change one unnoticed.
describe('keys', () => {
  it('builds every key as the storage layout names it', () => {
    expect(keys.request('t', 'ar1')).toBe('req:{t:ar1}');
    expect(keys.transaction('t', 'c1', 'tx1')).toBe('txn:{t:c1}:tx1');
    expect(keys.redemption('t', 'rd1')).toBe('rdm:{t:rd1}');
    expect(keys.decisionChallenge('t', 'ch1')).toBe('chl:{t}:ch1');
    expect(keys.livePrompts('t', 'ar1', 'd1')).toBe('prompts:{t:ar1}:d1');
    expect(keys.userRequests('t', 'u1')).toBe('inbox:{t:u1}');
    expect(keys.userMandates('t', 'u1')).toBe('mandates:{t:u1}');
    expect(keys.pendingRequests('t', 'u1')).toBe('pending:{t:u1}');
    expect(keys.clientPendingRequests('t', 'u1', 'c1')).toBe('pending:{t:u1}:c1');
    expect(keys.pushes('t', 'u1')).toBe('pushes:{t:u1}');
    expect(keys.window('t', 'velocity-user', 'o1')).toBe('velocity:{t:o1}:user');
    expect(keys.window('t', 'velocity-client', 'o1')).toBe('velocity:{t:o1}:client');
    expect(keys.roleRequests('t', 'reviewer:finance')).toBe('rinbox:{t}:reviewer:finance');
    expect(keys.roleMembers('t', 'reviewer:finance')).toBe('role:{t}:reviewer:finance');
    expect(keys.clientBlocks('t', 'u1')).toBe('blocks:{t:u1}');
    expect(keys.client('c1')).toBe('client:{c1}');
    expect(keys.tenantClients('t')).toBe('clients:{t}');
    expect(keys.tenantUsers('t')).toBe('users:{t}');
    expect(keys.user('t', 'u1')).toBe('user:{t:u1}');
    expect(keys.userDevices('t', 'u1')).toBe('devices:{t:u1}');
    expect(keys.device('t', 'u1', 'd1')).toBe('device:{t:u1}:d1');
    expect(keys.credential('t', 'cr1')).toBe('cred:{t:cr1}');
    expect(keys.devicePush('t', 'u1', 'd1')).toBe('push:{t:u1}:d1');
    expect(keys.enrollment('code1')).toBe('enroll:{code1}');
    expect(keys.session('ss1')).toBe('session:{ss1}');
    expect(keys.requestAudit('t', 'ar1')).toBe('audit:{t:ar1}');
    expect(keys.requestAuditIndex('t', 'ar1')).toBe('auditidx:{t}:ar1');
    expect(keys.policyAuditIndex('t')).toBe('auditpol:{t}');
    expect(keys.tenantPolicy('t')).toBe('tpolicy:{t}');
    expect(keys.tenantAudit('t')).toBe('audit:{t}');
    expect(keys.auditChain('t')).toBe('auditlog:{t}');
    expect(keys.auditAnchor('t')).toBe('auditanchor:{t}');
    expect(keys.auditTenants()).toBe('audittenants:{audit}');
    expect(keys.deadlines()).toBe('deadlines:{pending}');
    expect(keys.outcomeDeadlines()).toBe('deadlines:{outcome}');
    expect(keys.spendOutcomeDeadlines()).toBe('deadlines:{spend-outcome}');
    expect(keys.escalations()).toBe('deadlines:{escalation}');
    expect(keys.outboxDue()).toBe('outbox:{due}');
    expect(keys.usedJti('c1', 'assertion', 'jh1')).toBe('jti:{c1}:assertion:jh1');
    expect(keys.usedJti('c1', 'request', 'jh1')).toBe('jti:{c1}:request:jh1');
    expect(keys.lease('n1')).toBe('lease:{n1}');
    expect(keys.jobs()).toBe('jobs:{queue}');
    expect(keys.jobsDelayed()).toBe('jobs:{delayed}');
    expect(keys.rate('lim1', 'subj1')).toBe('rate:{lim1:subj1}');
    expect(keys.streamSlots('subj1')).toBe('streams:{subj1}');
    expect(keys.config('n1')).toBe('config:{n1}');
  });

  it('has exactly the keys pinned above', () => {
    expect(Object.keys(keys)).toHaveLength(44);
  });
});
