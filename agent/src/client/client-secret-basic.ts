/**
 * One value in `application/x-www-form-urlencoded` form (the WHATWG URL serialiser: space → `+`,
 * everything but ASCII letters, digits and `*-._` percent-encoded as UTF-8).
 *
 * @see RFC 6749 Appendix B
 */
export function formUrlEncode(value: string): string {
  // The same serialiser that builds a form body, so the two encodings can never drift apart.
  return new URLSearchParams([['', value]]).toString().slice(1);
}

/**
 * The `Authorization` header value for `client_secret_basic`: the client id and secret are each
 * form-urlencoded first, then joined with `:` and base64-encoded.
 *
 * Encoding first is what RFC 6749 §2.3.1 asks and what openid-client sends; it is also what makes
 * an id or secret holding `:` or a non-ASCII character unambiguous (the colon becomes `%3A`, and
 * `btoa` only ever sees ASCII).
 *
 * @param clientId - the registered `client_id`.
 * @param clientSecret - the client secret; never logged.
 * @returns `Basic <base64>`.
 * @see RFC 6749 §2.3.1, RFC 7617 §2
 * @example
 * ```ts
 * clientSecretBasic('agent:1', 'p%ss wörd');
 * // 'Basic ' + base64('agent%3A1:p%25ss+w%C3%B6rd')
 * ```
 */
export function clientSecretBasic(clientId: string, clientSecret: string): string {
  return `Basic ${btoa(`${formUrlEncode(clientId)}:${formUrlEncode(clientSecret)}`)}`;
}
