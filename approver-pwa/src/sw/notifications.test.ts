import { describe, expect, it } from 'vitest';
import { clickTarget, isAppWindow, notificationFor, readPayload } from './notifications.ts';

const ORIGIN = 'https://approve.example.com';
const data = (value: unknown) => ({ json: () => (typeof value === 'string' ? JSON.parse(value) : value) });

describe('notificationFor', () => {
  it('shows the summary (amount and payee) with one tag per request, opening that request', () => {
    const payload = readPayload(data({ kind: 'approval_request', auth_req_id: 'req_1042', summary: 'Support agent: EUR 490.00 to ACME Ltd' }));
    const { title, options } = notificationFor(payload);
    expect(title).toBe('Approval requested');
    expect(options).toMatchObject({ body: 'Support agent: EUR 490.00 to ACME Ltd', tag: 'req_1042', requireInteraction: true, data: { url: '/#/requests/req_1042' } });
  });

  it('still shows a notification for a payload it cannot read', () => {
    for (const payload of [null, data('not json {'), data({ summary: 'no id' }), data(null)]) {
      const { options } = notificationFor(readPayload(payload));
      expect(options).toMatchObject({ body: 'Open Countersign to see what is asked of you.', tag: 'countersign', data: { url: '/#/' } });
    }
  });

  it('replaces the notification of a request that expired, quietly', () => {
    const { title, options } = notificationFor(readPayload(data({ kind: 'request_expired', auth_req_id: 'req_1042', summary: 'EUR 490.00 to ACME Ltd' })));
    expect(title).toBe('Request expired');
    expect(options).toMatchObject({ body: 'EUR 490.00 to ACME Ltd', tag: 'req_1042', requireInteraction: false, silent: true, data: { url: '/#/requests/req_1042' } });
  });

  it('shows an unknown kind as a new request', () => {
    expect(notificationFor(readPayload(data({ kind: 'something_new', auth_req_id: 'req_1' }))).title).toBe('Approval requested');
  });
  it('shows a device removed by an administrator as a notice that leads to the devices screen', () => {
    const { title, options } = notificationFor(readPayload(data({ kind: 'device_removed', auth_req_id: 'dev_lost_phone', summary: 'Your device "Pixel" was removed by an administrator.' })));
    expect(title).toBe('A device was removed');
    expect(options).toMatchObject({ body: 'Your device "Pixel" was removed by an administrator.', tag: 'device:dev_lost_phone', requireInteraction: true, data: { url: '/#/devices' } });
  });

  it('escapes an id into the fragment', () => {
    expect(notificationFor(readPayload(data({ auth_req_id: 'a/b?c' }))).options.data).toEqual({ url: '/#/requests/a%2Fb%3Fc' });
  });
});

describe('clickTarget', () => {
  it('opens the request of the notification', () => {
    expect(clickTarget({ url: '/#/requests/req_1042' }, ORIGIN)).toBe(`${ORIGIN}/#/requests/req_1042`);
  });

  it('opens only pages of this app, the inbox otherwise', () => {
    expect(clickTarget({ url: 'https://evil.example.net/#/requests/x' }, ORIGIN)).toBe(`${ORIGIN}/#/`);
    expect(clickTarget({ url: '//evil.example.net/' }, ORIGIN)).toBe(`${ORIGIN}/#/`);
    expect(clickTarget({ url: 42 }, ORIGIN)).toBe(`${ORIGIN}/#/`);
    expect(clickTarget(null, ORIGIN)).toBe(`${ORIGIN}/#/`);
  });
});

describe('isAppWindow', () => {
  it("tells the app's windows from other pages of the origin", () => {
    expect(isAppWindow(`${ORIGIN}/#/requests/x`)).toBe(true);
    expect(isAppWindow(`${ORIGIN}/`)).toBe(true);
    expect(isAppWindow(`${ORIGIN}/console`)).toBe(false);
    expect(isAppWindow('not a url')).toBe(false);
  });
});
