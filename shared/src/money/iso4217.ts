/**
 * ISO 4217 active currency codes and their minor-unit exponents (the "E" column of the
 * standard's list one). Exponent 2 unless listed otherwise. Funds and precious-metal codes
 * without a minor unit (XAU, XDR…) are left out: an amount in minor units makes no sense there.
 *
 * @see ISO 4217:2015, list one (current currency and funds)
 */
const TWO = `AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP
BYN BZD CAD CDF CHE CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP
GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR
LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB
PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL
THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG`;
const ZERO = 'BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF';
const THREE = 'BHD IQD JOD KWD LYD OMR TND';
const FOUR = 'CLF UYW';

function table(): ReadonlyMap<string, number> {
  const map = new Map<string, number>();
  for (const [codes, exponent] of [
    [TWO, 2],
    [ZERO, 0],
    [THREE, 3],
    [FOUR, 4],
  ] as const) {
    for (const code of codes.split(/\s+/)) if (code) map.set(code, exponent);
  }
  return map;
}

/** Every supported ISO 4217 code mapped to its minor-unit exponent (JPY 0, EUR 2, KWD 3). */
export const CURRENCY_EXPONENTS: ReadonlyMap<string, number> = table();

/** True when `code` is an active ISO 4217 currency code with a minor unit. */
export function isCurrencyCode(code: string): boolean {
  return CURRENCY_EXPONENTS.has(code);
}

/**
 * The ISO 4217 minor-unit exponent of a currency.
 * @throws RangeError for a code that is not in {@link CURRENCY_EXPONENTS}.
 */
export function currencyExponent(code: string): number {
  const exponent = CURRENCY_EXPONENTS.get(code);
  if (exponent === undefined) throw new RangeError(`unknown ISO 4217 currency: ${code}`);
  return exponent;
}
