import { describe, expect, it } from 'vitest';
import { mandateHref, parseRoute, requestHref } from './router.ts';

describe('parseRoute', () => {
  it('opens the inbox for an empty fragment or #/', () => {
    expect(parseRoute('')).toEqual({ name: 'inbox' });
    expect(parseRoute('#')).toEqual({ name: 'inbox' });
    expect(parseRoute('#/')).toEqual({ name: 'inbox' });
  });

  it('reads the enrollment code from #/enroll/<code>', () => {
    expect(parseRoute('#/enroll/enr_AbC-123_xyz')).toEqual({ name: 'enroll', code: 'enr_AbC-123_xyz' });
  });

  it('reads and decodes the request id from #/requests/<id>', () => {
    expect(parseRoute(requestHref('areq_1/2'))).toEqual({ name: 'request', authReqId: 'areq_1/2' });
  });

  it('opens the history and the devices', () => {
    expect(parseRoute('#/history')).toEqual({ name: 'history' });
    expect(parseRoute('#/devices')).toEqual({ name: 'devices' });
    expect(parseRoute('#/history/x')).toEqual({ name: 'not_found' });
  });

  it('opens the mandates, and one mandate by its decoded id', () => {
    expect(parseRoute('#/mandates')).toEqual({ name: 'mandates' });
    expect(parseRoute(mandateHref('areq_1/2'))).toEqual({ name: 'mandate', authReqId: 'areq_1/2' });
    expect(parseRoute('#/mandates/a/b')).toEqual({ name: 'not_found' });
  });

  it('refuses anything else', () => {
    expect(parseRoute('#/enroll/')).toEqual({ name: 'not_found' });
    expect(parseRoute('#/requests/a/b')).toEqual({ name: 'not_found' });
    expect(parseRoute('#main')).toEqual({ name: 'not_found' });
    expect(parseRoute('#/requests/%E0%A4%A')).toEqual({ name: 'not_found' });
  });
});
