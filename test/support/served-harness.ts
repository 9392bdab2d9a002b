import { createHarness, freePort, type Harness, type HarnessOptions } from './harness.ts';

/**
 * A harness served over HTTP on a free loopback port, its `PUBLIC_URL` that port's origin
 * (`http://localhost:<port>`): for browsers and for clients that must go through a real socket.
 * Close the harness at the end of the test.
 */
export async function servedHarness(options: Omit<HarnessOptions, 'publicUrl'> = {}): Promise<{ harness: Harness; origin: string; port: number }> {
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const harness = await createHarness({ ...options, publicUrl: origin });
  await harness.listen(port);
  return { harness, origin, port };
}
