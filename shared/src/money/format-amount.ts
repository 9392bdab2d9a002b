import { currencyExponent } from './iso4217.ts';

/** An amount formatted for a person, computed from minor units without floating point. */
export interface FormattedAmount {
  /** The amount in minor units, as given (a positive safe integer). */
  amount_minor: number;
  /** ISO 4217 code, e.g. `EUR`. */
  currency: string;
  /** The currency's ISO 4217 exponent (JPY 0, EUR 2, KWD 3). */
  exponent: number;
  /** The exact decimal value as text, e.g. `490.00`. */
  decimal: string;
  /** Localised with the currency's symbol, e.g. `€490.00`. */
  formatted: string;
  /** Localised with the ISO code, unambiguous across dollars and krone, e.g. `EUR 490.00`. */
  formatted_code: string;
}

/** The exact decimal text of `minor` minor units with `exponent` digits after the point. */
export function minorToDecimal(minor: number, exponent: number): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError('amount_minor must be a safe integer');
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const fraction = exponent > 0 ? `.${digits.slice(digits.length - exponent)}` : '';
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

/**
 * Formats an amount given in minor units with its currency's ISO 4217 exponent.
 *
 * The decimal value is built as text and handed to `Intl.NumberFormat` as a string, so that
 * large amounts are never rounded through a binary float.
 *
 * @param amountMinor - amount in minor units (cents for EUR, yen for JPY, fils for KWD).
 * @param currency - ISO 4217 code.
 * @param locale - BCP 47 locale for grouping and symbol placement; `en` by default.
 * @throws RangeError for an unknown currency or an amount that is not a safe integer.
 * @see ISO 4217 (minor unit exponents)
 */
export function formatAmount(amountMinor: number, currency: string, locale = 'en'): FormattedAmount {
  const exponent = currencyExponent(currency);
  const decimal = minorToDecimal(amountMinor, exponent);
  const { symbol, code } = formatters(locale, currency, exponent);
  // Intl accepts exact decimal strings (ECMA-402 NumberFormat v3); the cast keeps older lib typings quiet.
  const value = decimal as unknown as number;
  return {
    amount_minor: amountMinor,
    currency,
    exponent,
    decimal,
    // Plain spaces: the text is compared, hashed into notifications and laid out by CSS, which keeps it on one line.
    formatted: symbol.format(value).replace(/\u00a0/g, ' '),
    formatted_code: code.format(value).replace(/\u00a0/g, ' '),
  };
}

/** Building an `Intl.NumberFormat` costs far more than using one (it showed in every profile): keep them. */
const FORMATTERS = new Map<string, { symbol: Intl.NumberFormat; code: Intl.NumberFormat }>();

function formatters(locale: string, currency: string, exponent: number): { symbol: Intl.NumberFormat; code: Intl.NumberFormat } {
  const key = `${locale}|${currency}`;
  let pair = FORMATTERS.get(key);
  if (!pair) {
    const options = { style: 'currency', currency, minimumFractionDigits: exponent, maximumFractionDigits: exponent } as const;
    pair = {
      symbol: new Intl.NumberFormat(locale, { ...options, currencyDisplay: 'narrowSymbol' }),
      code: new Intl.NumberFormat(locale, { ...options, currencyDisplay: 'code' }),
    };
    // Bounded: a few locales times the ~180 ISO 4217 codes.
    if (FORMATTERS.size < 2048) FORMATTERS.set(key, pair);
  }
  return pair;
}
