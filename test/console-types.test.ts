import { describe, expect, it } from 'vitest';
import { SAMPLE_TYPES as CONSOLE_SAMPLE_TYPES } from '../operator-console/src/admin-types.ts';
import { SAMPLE_LABELS, SAMPLE_TYPES, samplePreviews } from '../server/src/console/index.ts';

/**
 * The operator console (a browser bundle, operator-console/) cannot import the server's modules,
 * so operator-console/src/admin-types.ts mirrors the few operator-only constants it needs: they
 * must stay the server's.
 */
describe("the operator console's copy of the server's shapes", () => {
  it('sends as a sample every type the server builds one of, but the payment its form writes out', () => {
    expect([...CONSOLE_SAMPLE_TYPES]).toEqual(SAMPLE_TYPES.filter((type) => type !== 'payment'));
    expect(samplePreviews().map((sample) => sample.type)).toEqual(['payment', ...CONSOLE_SAMPLE_TYPES]);
    expect(CONSOLE_SAMPLE_TYPES.map((type) => SAMPLE_LABELS[type])).toEqual(['Deletion', 'Message to many', 'Access change', 'Record change']);
  });
});
