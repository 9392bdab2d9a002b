import { z } from 'zod';
import { isCurrencyCode } from './iso4217.ts';

/** What `amount_minor` is, said where it is missing or of the wrong type (a newcomer sends `amount` instead). */
const MINOR_UNITS = 'minor units, an integer';

/**
 * An ISO 4217 alphabetic code (`EUR`). A code that is only in the wrong case (`eur`) is refused like
 * any other, but the refusal names the upper-case spelling: codes are compared exactly, never folded.
 */
export const currencyCode = z.string().refine(isCurrencyCode, {
  error: (issue) => {
    const upper = typeof issue.input === 'string' ? issue.input.toUpperCase() : '';
    return upper !== issue.input && isCurrencyCode(upper) ? `must be an upper-case ISO 4217 code: ${upper}` : 'must be an ISO 4217 currency code';
  },
});

/**
 * A positive amount in the currency's minor unit (cents for EUR), at most `Number.MAX_SAFE_INTEGER`.
 * A missing one says it is required and what it is (`describeIssue` on the server reads the
 * `is required` message as the whole description of a missing member).
 */
export const positiveMinorUnits = z
  .number({ error: (issue) => (issue.input === undefined ? `is required (${MINOR_UNITS})` : `must be a JSON number (${MINOR_UNITS})`) })
  .int('must be a whole number of minor units')
  .positive()
  .max(Number.MAX_SAFE_INTEGER);
