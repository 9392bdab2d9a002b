import { describe, expect, it } from 'vitest';
import { CountersignError } from './countersign-error.ts';

describe('CountersignError', () => {
  it('captures no stack trace for a refusal (4xx): it is an expected answer, thrown on every poll', () => {
    const refusal = new CountersignError('authorization_pending', 'The request is still pending.');
    expect(refusal.stack).toBe('CountersignError: The request is still pending.');
    expect(new CountersignError('not_found', 'No such resource.', { status: 404 }).stack).not.toMatch(/\n/);
  });

  it('keeps the stack trace of a server error (5xx)', () => {
    expect(new CountersignError('server_error', 'could not save').stack).toMatch(/\n\s+at /);
    expect(new CountersignError('invalid_request', 'upstream broke', { status: 502 }).stack).toMatch(/\n\s+at /);
  });

  it('keeps its public shape, and leaves Error.stackTraceLimit as it found it', () => {
    const limit = Error.stackTraceLimit;
    const cause = new Error('inner');
    const error = new CountersignError('slow_down', 'Poll less often.', { cause, headers: { 'Retry-After': '5' }, body: { interval: 10 } });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'CountersignError', code: 'slow_down', status: 400, expose: true, message: 'Poll less often.', cause, headers: { 'Retry-After': '5' } });
    expect(error.toJSON()).toEqual({ error: 'slow_down', error_description: 'Poll less often.', interval: 10 });
    expect(Error.stackTraceLimit).toBe(limit);
    expect(new Error('after').stack).toMatch(/\n\s+at /);
  });
});
