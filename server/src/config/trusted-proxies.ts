import ipaddr from 'ipaddr.js';

/**
 * `TRUSTED_PROXIES` → CIDR ranges: an address stands for itself alone (`/32`, `/128`); an
 * IPv4-mapped IPv6 address or range is taken as the IPv4 one, as connections from it are.
 * @throws Error naming the entry that is neither an address nor a CIDR range.
 */
export function parseTrustedProxies(list: string | undefined): string[] {
  return (list ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      try {
        const [text, bitsText] = entry.split('/');
        // Four-part decimal IPv4 only: `10.0.0` or `0x0a.0.0.1` would name an address other than the one an operator reads.
        if (!ipaddr.IPv4.isValidFourPartDecimal(text!) && !ipaddr.IPv6.isValid(text!)) throw new Error('not an address');
        if (bitsText !== undefined && !/^\d{1,3}$/.test(bitsText)) throw new Error('not a prefix length');
        const [address, bits] = bitsText === undefined ? [ipaddr.parse(text!), undefined] : ipaddr.parseCIDR(entry);
        const mapped = address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress();
        const plain = mapped ? (address as ipaddr.IPv6).toIPv4Address() : address;
        const prefix = bits === undefined ? (plain.kind() === 'ipv4' ? 32 : 128) : mapped ? bits - 96 : bits;
        if (prefix < 0) throw new Error('prefix too short');
        return `${plain.toNormalizedString()}/${prefix}`;
      } catch {
        throw new Error(`invalid configuration: TRUSTED_PROXIES: ${entry} is not an IP address or CIDR range`);
      }
    });
}
