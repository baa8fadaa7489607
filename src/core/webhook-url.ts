/**
 * Whether a chat webhook URL may be posted to: `https` to a public host. Literal addresses are
 * judged in every notation the URL parser accepts (it normalizes `2130706433`, `0177.0.0.1`,
 * `0x7f.1` and `127.1` to `127.0.0.1`, and IPv6 to its compressed hex form); names are judged
 * by what they say (`localhost`, `*.localhost`, single labels), since a Worker cannot resolve
 * them first.
 */

type Range = readonly [base: number, prefix: number];

/** IPv4 ranges that are not a public host: RFC 6890 special-purpose blocks a webhook has no business in. */
const IPV4_REFUSED: readonly Range[] = [
  [0x00000000, 8], // 0.0.0.0/8 "this network", 0.0.0.0 unspecified
  [0x0a000000, 8], // 10/8 private
  [0x64400000, 10], // 100.64/10 carrier-grade NAT
  [0x7f000000, 8], // 127/8 loopback
  [0xa9fe0000, 16], // 169.254/16 link-local (cloud metadata)
  [0xac100000, 12], // 172.16/12 private
  [0xc0000000, 24], // 192.0.0/24 IETF protocol assignments
  [0xc0a80000, 16], // 192.168/16 private
  [0xc6120000, 15], // 198.18/15 benchmarking
  [0xe0000000, 4], // 224/4 multicast
  [0xf0000000, 4], // 240/4 reserved, 255.255.255.255 broadcast
];

const inRange = (address: number, [base, prefix]: Range) =>
  prefix === 0 || address >>> (32 - prefix) === base >>> (32 - prefix);

/** A dotted-quad IPv4 address as a number, or null when `host` is not one. */
function ipv4(host: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return null;
  return parts.reduce((acc, p) => acc * 256 + p, 0);
}

const publicIpv4 = (address: number) => !IPV4_REFUSED.some((r) => inRange(address, r));

/** The eight 16-bit groups of an IPv6 address (with an optional dotted IPv4 tail), or null. */
function ipv6Groups(text: string): number[] | null {
  let tail: number[] = [];
  let body = text;
  const v4 = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (v4) {
    const address = ipv4(v4[2] as string);
    if (address === null) return null;
    tail = [address >>> 16, address & 0xffff];
    body = (v4[1] as string).endsWith('::') ? (v4[1] as string) : (v4[1] as string).slice(0, -1);
  }
  const halves = body.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string) =>
    s === '' ? [] : s.split(':').map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN));
  const head = parse(halves[0] as string);
  const rest = halves.length === 2 ? parse(halves[1] as string) : [];
  const known = head.length + rest.length + tail.length;
  if ([...head, ...rest].some(Number.isNaN)) return null;
  if (halves.length === 1 && known !== 8) return null;
  if (halves.length === 2 && known > 7) return null;
  return [...head, ...Array(8 - known).fill(0), ...rest, ...tail];
}

function publicIpv6(groups: number[]): boolean {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  const embedded = (g6 << 16) + g7;
  const zeroPrefix = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0;
  if (zeroPrefix && g5 === 0) {
    // :: unspecified, ::1 loopback, and the deprecated IPv4-compatible ::a.b.c.d.
    if (g6 === 0) return false;
    return publicIpv4(embedded >>> 0);
  }
  // ::ffff:a.b.c.d, IPv4-mapped: judged as the IPv4 address it is.
  if (zeroPrefix && g5 === 0xffff) return publicIpv4(embedded >>> 0);
  // 64:ff9b::a.b.c.d, NAT64: reaches the IPv4 address it embeds.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return publicIpv4(embedded >>> 0);
  }
  if ((g0 & 0xfe00) === 0xfc00) return false; // fc00::/7 unique local
  if ((g0 & 0xffc0) === 0xfe80) return false; // fe80::/10 link-local
  if ((g0 & 0xffc0) === 0xfec0) return false; // fec0::/10 site-local (deprecated)
  if ((g0 & 0xff00) === 0xff00) return false; // ff00::/8 multicast
  return true;
}

/** Why `url` may not be a chat webhook, or null when it may. */
export function webhookUrlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'Not a URL';
  }
  if (parsed.protocol !== 'https:') return 'Must be an https URL';
  // Trailing dots name the same host (`localhost.` is localhost, `127.0.0.1.` is 127.0.0.1).
  const host = parsed.hostname.toLowerCase().replace(/\.+$/, '');
  if (host.startsWith('[')) {
    const groups = ipv6Groups(host.slice(1, -1));
    if (groups === null || !publicIpv6(groups))
      return 'Must be a public host, not a loopback, private, link-local or special address';
    return null;
  }
  const v4 = ipv4(host);
  if (v4 !== null) {
    return publicIpv4(v4)
      ? null
      : 'Must be a public host, not a loopback, private, link-local or special address';
  }
  if (host === '' || host === 'localhost' || host.endsWith('.localhost'))
    return 'Must be a public host, not localhost';
  if (!host.includes('.')) return 'Must be a public host name (a single label names a local host)';
  return null;
}
