/**
 * Which hosts a tenant's data source may name. A deployment's database host is the tenant's
 * choice, so without this rule a tenant could point edgeboard at the operator's own network.
 * Workers cannot open sockets to private ranges in production anyway; this check is defence in
 * depth and turns the refusal into a clear error. It judges the text of the host only: a public
 * name that resolves to a private address is left to the platform's own refusal.
 */

/** IPv4 ranges no data source may reach: [first octets as a 32-bit number, prefix length, what]. */
const IPV4_BLOCKED: readonly (readonly [string, number, string])[] = [
  ['0.0.0.0', 8, 'an unspecified address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a carrier-grade NAT address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'a reserved address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a reserved address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
];

/** The 32-bit value of a dotted quad of four decimal octets, or null. */
function ipv4Value(text: string): number | null {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p))) return null;
  const octets = parts.map(Number);
  if (octets.some((o) => o > 255)) return null;
  return octets.reduce((acc, o) => acc * 256 + o, 0);
}

function ipv4Reason(value: number): string | null {
  for (const [base, bits, what] of IPV4_BLOCKED) {
    const size = 2 ** (32 - bits);
    const start = ipv4Value(base) as number;
    if (value >= start && value < start + size) return what;
  }
  return null;
}

/** The eight 16-bit groups of an IPv6 literal (a trailing dotted quad allowed), or null. */
function ipv6Groups(text: string): number[] | null {
  let head = text;
  const tail: number[] = [];
  const quad = /(?:^|:)(\d+\.\d+\.\d+\.\d+)$/.exec(head);
  if (quad?.[1]) {
    const v4 = ipv4Value(quad[1]);
    if (v4 === null) return null;
    tail.push(Math.floor(v4 / 65536), v4 % 65536);
    head = head.slice(0, head.length - quad[1].length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === '' ? [] : part.split(':'));
  const groupsOf = (parts: string[]) =>
    parts.every((g) => /^[0-9a-f]{1,4}$/i.test(g)) ? parts.map((g) => Number.parseInt(g, 16)) : null;
  const left = groupsOf(parse(halves[0] ?? ''));
  const right = groupsOf(halves.length === 2 ? parse(halves[1] ?? '') : []);
  if (!left || !right) return null;
  const given = left.length + right.length + tail.length;
  if (halves.length === 1) return given === 8 ? [...left, ...tail] : null;
  if (given > 7) return null;
  return [...left, ...new Array(8 - given).fill(0), ...right, ...tail];
}

function ipv6Reason(g: number[]): string | null {
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, h1 = 0, h2 = 0] = g;
  const embedded = h1 * 65536 + h2;
  if (g.every((x) => x === 0)) return 'an unspecified address';
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && f === 0 && h1 === 0 && h2 === 1) {
    return 'a loopback address';
  }
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d)
  // addresses reach the IPv4 address they carry.
  const v4Mapped = a === 0 && b === 0 && c === 0 && d === 0 && e === 0 && (f === 0xffff || f === 0);
  const nat64 = a === 0x64 && b === 0xff9b && c === 0 && d === 0 && e === 0 && f === 0;
  if (v4Mapped || nat64) return ipv4Reason(embedded);
  if ((a & 0xfe00) === 0xfc00) return 'a private address';
  if ((a & 0xffc0) === 0xfe80) return 'a link-local address';
  if ((a & 0xff00) === 0xff00) return 'a multicast address';
  return null;
}

const BLOCKED_NAMES = /^(localhost|.+\.localhost|.+\.local|.+\.internal)$/;

/**
 * Why a data source may not connect to `host`, or null when it may. Refused: IP literals in
 * loopback, private, link-local, carrier-grade NAT, unspecified, multicast and reserved ranges
 * (IPv4 and IPv6, IPv4-mapped included), the names `localhost`, `*.localhost`, `*.local` and
 * `*.internal`, single-label names (no dot: `db`, `vm`), and numeric forms that are not a plain
 * dotted quad (`2130706433`, `0x7f.1`), which some resolvers read as addresses.
 */
export function forbiddenHostReason(host: string): string | null {
  const name = host.trim().toLowerCase().replace(/\.$/, '');
  if (name === '') return 'an empty host';
  const bracketed = /^\[(.*)\]$/.exec(name)?.[1];
  const literal = bracketed ?? name;
  if (literal.includes(':')) {
    if (literal.includes('%')) return 'an IPv6 address with a zone';
    const groups = ipv6Groups(literal);
    return groups ? ipv6Reason(groups) : 'not a valid IPv6 address';
  }
  if (bracketed !== undefined) return 'not a valid IPv6 address';
  const v4 = ipv4Value(name);
  if (v4 !== null) return ipv4Reason(v4);
  // Digits, dots and hex only, but not a dotted quad: inet_aton would read it as an address.
  if (/^(0x[0-9a-f]*|\d+)(\.(0x[0-9a-f]*|\d+))*$/.test(name)) return 'an address in a non-standard form';
  if (!/^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*$/.test(name)) {
    return 'not a valid host name';
  }
  // A single label (`db`, `vm`, `postgres`) is no public DNS name: the runtime's resolver makes
  // it whatever the local network says, which on a self-hosted runtime reaches loopback.
  if (BLOCKED_NAMES.test(name) || !name.includes('.')) return 'a local host name';
  return null;
}
