export { CURRENCY_EXPONENTS, currencyExponent, isCurrencyCode } from './iso4217.ts';
export { formatAmount, minorToDecimal, type FormattedAmount } from './format-amount.ts';
export { currencyCode, positiveMinorUnits } from './money-schemas.ts';
