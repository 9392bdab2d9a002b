import { describe, expect, it } from 'vitest';
import { actionProbe } from './action-probe.test-support.ts';

/** The access change of docs/ciba.md ("The actions a request may carry"), as an agent sends it. */
const EXAMPLE = {
  type: 'access_change',
  transaction_id: 'acc_3',
  principal: { id: 'u_9', name: 'Bo Li' },
  resource: { id: 'proj_1', name: 'Payments prod' },
  from_role: 'viewer',
  to_role: 'admin',
  purpose: 'On-call cover',
};

const { parse, problems, shown } = actionProbe(EXAMPLE);

describe('the access_change type', () => {
  it('accepts the documented access change as sent', () => {
    const result = parse({});
    expect(result.success).toBe(true);
    expect(result.data).toEqual([EXAMPLE]);
  });

  it('refuses unknown fields, in the action, its principal and its resource', () => {
    expect(problems({ expires_in: 3600 })).toEqual(['0: Unrecognized key: "expires_in"']);
    expect(problems({ principal: { id: 'u_9', name: 'Bo Li', email: 'bo@example.com' } })).toEqual(['0.principal: Unrecognized key: "email"']);
    expect(problems({ resource: { id: 'proj_1', name: 'Payments prod', env: 'prod' } })).toEqual(['0.resource: Unrecognized key: "env"']);
  });

  it('needs both roles stated: null for none, never left out', () => {
    expect(problems({ from_role: undefined })).toEqual(['0.from_role: Invalid input: expected string, received undefined']);
  });

  it('refuses a change that changes nothing: no role before or after, or the same role twice', () => {
    expect(problems({ from_role: null, to_role: null })).toEqual(['0.to_role: from_role and to_role may not both be null: that changes nothing']);
    expect(problems({ from_role: 'admin', to_role: 'admin' })).toEqual(['0.to_role: must differ from from_role: that changes nothing']);
  });

  it('refuses strings past their maximum', () => {
    expect(parse({ principal: { id: 'u'.repeat(128), name: 'n'.repeat(140) } }).success).toBe(true);
    expect(problems({ principal: { id: 'u'.repeat(129), name: 'Bo Li' } })).toEqual(['0.principal.id: Too big: expected string to have <=128 characters']);
    expect(problems({ principal: { id: 'u_9', name: 'n'.repeat(141) } })).toEqual(['0.principal.name: must be at most 140 characters']);
    expect(problems({ resource: { id: 'proj_1', name: 'n'.repeat(141) } })).toEqual(['0.resource.name: must be at most 140 characters']);
    expect(problems({ to_role: 'r'.repeat(65) })).toEqual(['0.to_role: Too big: expected string to have <=64 characters']);
    expect(problems({ purpose: 'p'.repeat(5001) })).toEqual(['0.purpose: must be at most 5000 characters']);
  });

  it.each([
    ['a right-to-left override', '\u202e', 'must not hold a bidirectional control (U+202E)'],
    ['a zero-width space', '\u200b', 'must not hold an invisible or filler character (U+200B)'],
    ['a backspace (a control character)', '\u0008', 'must not hold a control character (U+0008)'],
  ])('refuses %s in the names and the purpose, naming it', (_name, character, reason) => {
    expect(problems({ principal: { id: 'u_9', name: `Bo${character} Li` } })).toEqual([`0.principal.name: ${reason}`]);
    expect(problems({ resource: { id: 'proj_1', name: `Payments${character} prod` } })).toEqual([`0.resource.name: ${reason}`]);
    expect(problems({ purpose: `On-call${character} cover` })).toEqual([`0.purpose: ${reason}`]);
  });

  it('refuses a name that mixes scripts, and a role that is not an identifier', () => {
    expect(problems({ principal: { id: 'u_9', name: 'B\u043e Li' } })).toEqual(['0.principal.name: must be written in one script: it mixes Latin and Cyrillic (U+043E)']);
    expect(problems({ to_role: 'super admin' })).toEqual(['0.to_role: may hold only letters, digits and ._:-']);
    expect(parse({ to_role: 'billing:read' }).success).toBe(true);
  });

  it('shows the documented change in words: who, on what, from which role to which', () => {
    expect(shown({})).toStrictEqual({
      type: 'access_change',
      verb: 'Change',
      title: 'Change Bo Li from viewer to admin on Payments prod',
      summary: 'Change Bo Li from viewer to admin on Payments prod',
      access: { kind: 'change', principal: 'Bo Li (u_9)', resource: 'Payments prod (proj_1)', from_role: 'viewer', to_role: 'admin' },
      fields: [
        { label: 'Change', value: 'Change of role' },
        { label: 'Who', value: 'Bo Li (u_9)' },
        { label: 'On', value: 'Payments prod (proj_1)' },
        { label: 'Role now', value: 'viewer' },
        { label: 'Role after', value: 'admin' },
        { label: 'Purpose', value: 'On-call cover' },
        { label: 'Transaction', value: 'acc_3' },
      ],
    });
  });

  it('says a grant (no role before) in words', () => {
    expect(shown({ from_role: null })).toStrictEqual({
      type: 'access_change',
      verb: 'Grant',
      title: 'Grant Bo Li admin on Payments prod',
      summary: 'Grant Bo Li admin on Payments prod',
      access: { kind: 'grant', principal: 'Bo Li (u_9)', resource: 'Payments prod (proj_1)', from_role: null, to_role: 'admin' },
      fields: [
        { label: 'Change', value: 'Grant of a role' },
        { label: 'Who', value: 'Bo Li (u_9)' },
        { label: 'On', value: 'Payments prod (proj_1)' },
        { label: 'Role now', value: 'None' },
        { label: 'Role after', value: 'admin' },
        { label: 'Purpose', value: 'On-call cover' },
        { label: 'Transaction', value: 'acc_3' },
      ],
    });
  });

  it('says a revocation (no role after) in words', () => {
    expect(shown({ to_role: null, precondition: { record: 'iam:u_9', version: '41' } })).toStrictEqual({
      type: 'access_change',
      verb: 'Revoke',
      title: "Revoke Bo Li's viewer on Payments prod",
      summary: "Revoke Bo Li's viewer on Payments prod",
      access: { kind: 'revoke', principal: 'Bo Li (u_9)', resource: 'Payments prod (proj_1)', from_role: 'viewer', to_role: null },
      fields: [
        { label: 'Change', value: 'Revocation of a role' },
        { label: 'Who', value: 'Bo Li (u_9)' },
        { label: 'On', value: 'Payments prod (proj_1)' },
        { label: 'Role now', value: 'viewer' },
        { label: 'Role after', value: 'None (access removed)' },
        { label: 'Purpose', value: 'On-call cover' },
        { label: 'Transaction', value: 'acc_3' },
        { label: 'Only if unchanged', value: 'iam:u_9 at version 41' },
      ],
    });
  });
});
