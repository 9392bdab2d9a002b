import fc from 'fast-check';

// Values an attacker tries, for the fuzzing arbitraries (mutations.ts).

/** Strings that are odd for a server: controls, invisible and bidi characters, confusables, key injections, huge ones. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 24 }),
  fc.string({ unit: 'binary-ascii', maxLength: 24 }),
  fc.constantFrom('', ' ', '\u0000', 'a\u202Eb', 'Ref\u200Bund', 'e\u0301\u0301\u0301\u0301', 'ＡＣＭＥ Ltd', 'АСМЕ Ltd', '\uFEFFACME', '\uD800', '\uDFFF\uD800', '}:{x', 'alice}:{x', '__proto__', 'constructor', 'toString', 'null', '%zz', '%ff', '\r\n', '"', '\\', '😀'),
  fc.constantFrom(300, 5_000, 70_000).map((n) => 'x'.repeat(n)),
);

/** Numbers as JSON text (and some that JSON has no spelling for): zeros, signs, exponents, the safe-integer edge, overflow. */
export const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('0', '-0', '-1', '1', '4900', '4900.0', '4.9e3', '49E2', '1e300', '1e309', '-1e309', '9007199254740991', '9007199254740992', '9007199254740993', '1.5', '0.1', '00', '+1', 'NaN', 'Infinity', '0x10', '1_000', '1e-400'),
  fc.integer().map(String),
  fc.double().map(String),
);
