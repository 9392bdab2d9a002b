import { describe, expect, it } from 'vitest';
import { callKey, transactionId } from './call-key.ts';
import { bindingMessage } from './binding-message.ts';
import { isGated, listedTool } from './gating.ts';
import { GATEWAY_ANSWER_SCHEMA } from './results.ts';

const policy = { gate: ['send_email'], allow: ['delete_cache'] };

describe('isGated', () => {
  it('gates what gate names, and destructive tools unless allow names them', () => {
    expect(isGated('send_email', { annotations: { readOnlyHint: true } }, policy)).toBe(true);
    expect(isGated('delete_entities', { annotations: { destructiveHint: true } }, policy)).toBe(true);
    expect(isGated('delete_cache', { annotations: { destructiveHint: true } }, policy)).toBe(false);
    expect(isGated('read_graph', { annotations: { readOnlyHint: true, destructiveHint: false } }, policy)).toBe(false);
    // MCP's default for destructiveHint is true, but only when readOnlyHint is false; a tool without
    // annotations is not judged destructive by the gateway: gate it by name.
    expect(isGated('unknown', undefined, policy)).toBe(false);
  });
});

describe('listedTool', () => {
  it('leaves a tool that is not gated exactly as the upstream listed it', () => {
    const tool = { name: 'read_graph', description: 'Read it', inputSchema: { type: 'object' as const }, annotations: { readOnlyHint: true } };
    expect(listedTool(tool, policy)).toBe(tool);
  });

  it('says a gated tool asks the phone first, and lets its output schema admit the gateway’s answers', () => {
    const output = { type: 'object' as const, properties: { success: { type: 'boolean' } }, required: ['success'] };
    const listed = listedTool({ name: 'delete_entities', description: 'Delete', inputSchema: { type: 'object' }, outputSchema: output, annotations: { destructiveHint: true } }, policy);
    expect(listed.description).toMatch(/^Delete\n\nCountersign: .* on their phone/);
    expect(listed.outputSchema).toEqual({ type: 'object', anyOf: [output, GATEWAY_ANSWER_SCHEMA] });
    expect(listed.annotations).toEqual({ destructiveHint: true });
    expect(listed.execution).toEqual({ taskSupport: 'optional' });
  });
});

describe('callKey', () => {
  it('is the same for the same arguments in any key order, and differs for any change', () => {
    const key = callKey('memory', 'delete_entities', { entityNames: ['Alice'], force: true });
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(callKey('memory', 'delete_entities', { force: true, entityNames: ['Alice'] })).toBe(key);
    expect(callKey('memory', 'delete_entities', { entityNames: ['Alice', 'Bob'], force: true })).not.toBe(key);
    expect(callKey('memory', 'delete_relations', { entityNames: ['Alice'], force: true })).not.toBe(key);
    expect(callKey('other', 'delete_entities', { entityNames: ['Alice'], force: true })).not.toBe(key);
    expect(transactionId(key)).toBe(`mcp_${key}`);
  });
});

describe('bindingMessage', () => {
  it('is at most 64 characters Countersign accepts, ending in the key’s first four', () => {
    expect(bindingMessage('memory', 'delete_entities', 'AbC1xyz')).toBe('memory: delete_entities #AbC1');
    const long = bindingMessage('memory', `delete_${'x'.repeat(100)}`, 'AbC1xyz');
    expect(long).toHaveLength(64);
    expect(long.endsWith(' #AbC1')).toBe(true);
    expect(bindingMessage('mem', 'send\u0000mail\u{1F600}', 'AbC1')).toBe('mem: send mail #AbC1');
  });
});
