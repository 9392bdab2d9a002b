import { describe, expect, it } from 'vitest';
import { formatAmount, minorToDecimal } from './format-amount.ts';
import { currencyExponent, isCurrencyCode } from './iso4217.ts';

describe('amounts from minor units', () => {
  it.each([
    [49000, 'EUR', '490.00', 'EUR 490.00', '€490.00'],
    [1234, 'JPY', '1234', 'JPY 1,234', '¥1,234'],
    [1234567, 'KWD', '1234.567', 'KWD 1,234.567', 'KWD 1,234.567'],
    [5, 'USD', '0.05', 'USD 0.05', '$0.05'],
    [12345, 'CLF', '1.2345', 'CLF 1.2345', 'CLF 1.2345'],
  ])('formats %i %s with the ISO 4217 exponent', (minor, currency, decimal, code, symbol) => {
    expect(formatAmount(minor, currency)).toMatchObject({ decimal, formatted_code: code, formatted: symbol });
  });

  it('formats the largest safe integer exactly, without float rounding', () => {
    expect(formatAmount(Number.MAX_SAFE_INTEGER, 'USD').decimal).toBe('90071992547409.91');
    expect(formatAmount(Number.MAX_SAFE_INTEGER, 'USD').formatted_code).toBe('USD 90,071,992,547,409.91');
  });

  it('knows the exponents and refuses unknown codes', () => {
    expect([currencyExponent('EUR'), currencyExponent('JPY'), currencyExponent('KWD')]).toEqual([2, 0, 3]);
    expect([isCurrencyCode('EUR'), isCurrencyCode('eur'), isCurrencyCode('XXX'), isCurrencyCode('EURO')]).toEqual([true, false, false, false]);
    expect(() => formatAmount(100, 'XXX')).toThrow(RangeError);
    expect(() => minorToDecimal(1.5, 2)).toThrow(RangeError);
  });
});
