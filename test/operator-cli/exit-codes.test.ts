import { describe, expect, it } from 'vitest';
import { freePort } from '../support/harness.ts';
import { cliSuite } from './support.ts';

/** How the CLI exits: 1 with the server's code or when the server is away, 2 with the usage for a bad command line. */
// Each test starts one or more Node processes: generous limits, for a loaded CI machine.
describe('the operator CLI against a running server', { timeout: 90_000 }, () => {
  const { cli } = cliSuite();

  it("exits 1 with the server's code for a wrong token, and when the server is not there", async () => {
    const wrong = await cli(['requests', 'pending'], { ADMIN_TOKEN: 'not-the-admin-token-0123456789' });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('error: invalid_token');
    const port = await freePort();
    const away = await cli(['requests', 'pending'], { COUNTERSIGN_URL: `http://127.0.0.1:${port}` });
    expect(away.code).toBe(1);
    expect(away.stderr).toContain("Can't reach Countersign");
  });

  it('exits 2 with the usage for a mistake in the command line', async () => {
    expect(await cli([])).toMatchObject({ code: 2, stderr: expect.stringContaining('Usage:') });
    expect(await cli(['frobnicate'])).toMatchObject({ code: 2, stderr: expect.stringContaining('Unknown command') });
    expect(await cli(['user', 'add', 'dave', '--colour', 'red'])).toMatchObject({ code: 2, stderr: expect.stringContaining('--colour') });
    expect(await cli(['requests', 'pending'], { ADMIN_TOKEN: '' })).toMatchObject({ code: 2, stderr: expect.stringContaining('ADMIN_TOKEN') });
    expect(await cli(['--help'])).toMatchObject({ code: 0, stdout: expect.stringContaining('client create') });
  });
});
