import type { IdGenerator } from '../runtime/index.ts';

/** The codes of number matching: the one the agent shows, and the three the device offers. */
export interface BindingCodes {
  /** Two digits, `10`–`99` (no leading zero, so "07" and "7" are never two readings of one code). */
  binding_code: string;
  /** `binding_code` and two different decoys, in random order. */
  candidates: string[];
}

/** Unbiased random integers below `bound` from CSPRNG bytes (the injected id generator's output). */
function randomBelow(ids: IdGenerator): (bound: number) => number {
  let pool: Buffer = Buffer.alloc(0);
  return (bound) => {
    // Rejection sampling: a byte at or above the largest multiple of `bound` would favour small values.
    const limit = 256 - (256 % bound);
    for (;;) {
      if (pool.length === 0) pool = Buffer.from(ids(16), 'base64url');
      const byte = pool[0]!;
      pool = pool.subarray(1);
      if (byte < limit) return byte % bound;
    }
  };
}

/**
 * Draws a number-matching code and two decoys, all different, and shuffles them (Fisher–Yates), so
 * the right answer is not in a fixed place. Randomness comes from `ids`, the server's CSPRNG-backed
 * id generator, so tests can inject it.
 *
 * @see docs/guarantees.md "Push fatigue", docs/security.md "Number matching cannot be beaten by
 * trying each code"; NIST SP 800-63B §5.1.3.1 (out-of-band, comparing a secret)
 */
export function drawBindingCodes(ids: IdGenerator): BindingCodes {
  const below = randomBelow(ids);
  const codes: string[] = [];
  while (codes.length < 3) {
    const code = String(10 + below(90));
    if (!codes.includes(code)) codes.push(code);
  }
  const binding_code = codes[0]!;
  for (let i = codes.length - 1; i > 0; i--) {
    const j = below(i + 1);
    [codes[i], codes[j]] = [codes[j]!, codes[i]!];
  }
  return { binding_code, candidates: codes };
}
