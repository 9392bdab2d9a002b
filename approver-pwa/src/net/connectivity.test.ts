import { describe, expect, it } from 'vitest';
import { createConnectivity } from './connectivity.ts';

function setup(onLine = true) {
  const events = new EventTarget();
  const tracker = createConnectivity({ navigator: { onLine }, events });
  const seen: string[] = [];
  tracker.subscribe((state) => seen.push(state));
  return { events, tracker, seen };
}

describe('createConnectivity', () => {
  it("starts from the browser's view", () => {
    expect(setup(true).tracker.current()).toBe('online');
    expect(setup(false).tracker.current()).toBe('offline');
  });

  it('says offline when an API call fails, and online again when the server answers', () => {
    const { tracker, seen } = setup();
    tracker.reportUnreachable();
    tracker.reportUnreachable();
    expect(tracker.current()).toBe('offline');
    tracker.reportReached();
    expect(seen).toEqual(['offline', 'online']);
  });

  it("follows the browser's offline and online events", () => {
    const { events, tracker, seen } = setup();
    events.dispatchEvent(new Event('offline'));
    expect(tracker.current()).toBe('offline');
    events.dispatchEvent(new Event('online'));
    expect(seen).toEqual(['offline', 'online']);
  });

  it('believes an answer from the server over the browser, and the online event over an old failure', () => {
    const { events, tracker } = setup();
    events.dispatchEvent(new Event('offline'));
    tracker.reportReached();
    expect(tracker.current()).toBe('online');
    tracker.reportUnreachable();
    events.dispatchEvent(new Event('online'));
    expect(tracker.current()).toBe('online');
  });
});
