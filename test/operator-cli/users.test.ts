import { describe, expect, it } from 'vitest';
import { cliSuite, harness } from './support.ts';

/** `user add` and `enroll`: a user added once, a working enrollment link, with or without a QR code. */
// Each test starts one or more Node processes: generous limits, for a loaded CI machine.
describe('the operator CLI against a running server', { timeout: 90_000 }, () => {
  const { cli, fields } = cliSuite();

  it('adds a user, and says so when the user already exists', async () => {
    const first = await cli(['user', 'add', 'alice', '--name', 'Alice Martin']);
    expect(first.code).toBe(0);
    expect(fields(first.stdout)).toEqual({ sub: 'alice', tenant: 'default', display_name: 'Alice Martin' });
    expect(first.stderr).toContain('Added alice');
    const again = await cli(['user', 'add', 'alice']);
    expect(again.code).toBe(0);
    expect(again.stderr).toContain('already existed');
    // Asking for another name on an existing user is not silently dropped.
    const renamed = await cli(['user', 'add', 'alice', '--name', 'Alicia Other']);
    expect(renamed.code).toBe(1);
    expect(renamed.stderr).toContain('its display name stays "Alice Martin", not "Alicia Other"');
    expect((await cli(['user', 'add', 'alice', '--name', 'Alice Martin'])).code).toBe(0);
  });

  it('prints a working enrollment link on stdout, and no QR code for a localhost link but why not', async () => {
    await cli(['user', 'add', 'carol']);
    const run = await cli(['enroll', 'carol']);
    expect(run.code).toBe(0);
    const link = run.stdout.trim();
    expect(link).toMatch(new RegExp(`^${harness.issuer}/#/enroll/[A-Za-z0-9_-]+$`));
    // The harness serves http://localhost:<port>: a phone that scanned it would open itself.
    expect(run.stderr).not.toMatch(/[█▀▄]/u);
    expect(run.stderr).toContain('No QR code: this link is on localhost, which a phone cannot open');
    expect(run.stderr).toContain('works once');
    const code = link.split('/').pop()!;
    const options = await harness.call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: harness.issuer } });
    expect(options.status).toBe(200);
  });

  it('leaves the QR code out with --no-qr, and answers JSON with --json', async () => {
    const plain = await cli(['enroll', 'carol', '--no-qr']);
    expect(plain.stderr).not.toMatch(/[█▀▄]/u);
    const json = await cli(['enroll', 'carol', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ enrollment_url: expect.stringContaining('/#/enroll/'), expires_in: expect.any(Number) });
    expect(json.stderr).toBe('');
  });

  it('refuses to enroll an unknown user', async () => {
    const run = await cli(['enroll', 'nobody']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('error: not_found');
  });
});
