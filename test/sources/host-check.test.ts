import { env } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { Bindings } from '../../src/core/env';
import { forbiddenHostReason } from '../../src/sources/host-check';
import { DataSourceError, openDataSource } from '../../src/sources/open-data-source';

describe('forbiddenHostReason', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.255.254', 'a loopback address'],
    ['10.0.0.1', 'a private address'],
    ['10.255.255.255', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['169.254.169.254', 'a link-local address'],
    ['100.64.0.1', 'a carrier-grade NAT address'],
    ['100.127.255.255', 'a carrier-grade NAT address'],
    ['0.0.0.0', 'an unspecified address'],
    ['0.1.2.3', 'an unspecified address'],
    ['224.0.0.1', 'a multicast address'],
    ['239.255.255.250', 'a multicast address'],
    ['255.255.255.255', 'a reserved address'],
    ['::1', 'a loopback address'],
    ['[::1]', 'a loopback address'],
    ['0:0:0:0:0:0:0:1', 'a loopback address'],
    ['::', 'an unspecified address'],
    ['fc00::1', 'a private address'],
    ['fd12:3456:789a::1', 'a private address'],
    ['fe80::1', 'a link-local address'],
    ['febf::1', 'a link-local address'],
    ['ff02::1', 'a multicast address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['[::ffff:10.1.2.3]', 'a private address'],
    ['64:ff9b::192.168.0.1', 'a private address'],
    ['fe80::1%eth0', 'an IPv6 address with a zone'],
    ['localhost', 'a local host name'],
    ['LOCALHOST.', 'a local host name'],
    ['db.localhost', 'a local host name'],
    ['printer.local', 'a local host name'],
    ['metadata.google.internal', 'a local host name'],
    ['vm', 'a local host name'],
    ['db', 'a local host name'],
    ['postgres', 'a local host name'],
    ['DB.', 'a local host name'],
    ['my_db-1', 'a local host name'],
    ['2130706433', 'an address in a non-standard form'],
    ['0x7f.1', 'an address in a non-standard form'],
    ['0177.0.0.1', 'an address in a non-standard form'],
    ['127.1', 'an address in a non-standard form'],
    ['', 'an empty host'],
    ['db host', 'not a valid host name'],
    ['user@db.example.com', 'not a valid host name'],
    ['[example.com]', 'not a valid IPv6 address'],
    ['1::2::3', 'not a valid IPv6 address'],
  ])('refuses %s (%s)', (host, reason) => {
    expect(forbiddenHostReason(host)).toBe(reason);
  });

  it.each([
    'db.example.com',
    'my-db.eu-central-1.rds.amazonaws.com',
    '8.8.8.8',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.1.1',
    '192.169.0.1',
    '223.255.255.255',
    '2001:db8::1',
    '[2606:4700:4700::1111]',
    '::ffff:8.8.8.8',
    'localhost.example.com',
    'internal.example.com',
  ])('accepts %s', (host) => {
    expect(forbiddenHostReason(host)).toBeNull();
  });
});

describe('openDataSource and the private-address rule', () => {
  const production = { ...(env as Bindings), DATA_SOURCES_ALLOW_PRIVATE: undefined } as Bindings;
  const postgres = (host: string, extra: Record<string, string> = {}) =>
    ({ type: 'postgres', host, user: 'u', password: 'p', ...extra }) as const;

  it('refuses a private host with FORBIDDEN_HOST, without naming the address', () => {
    for (const host of ['10.1.2.3', 'localhost', '[::1]', 'postgres']) {
      let caught: unknown;
      try {
        openDataSource(production, 1, postgres(host));
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(DataSourceError);
      expect((caught as DataSourceError).code).toBe('FORBIDDEN_HOST');
      expect((caught as DataSourceError).message).not.toContain(host);
    }
  });

  it('lets private hosts through when DATA_SOURCES_ALLOW_PRIVATE is 1', () => {
    const allowed = { ...production, DATA_SOURCES_ALLOW_PRIVATE: '1' } as Bindings;
    expect(openDataSource(allowed, 1, postgres('10.1.2.3')).dialect).toBe('postgres');
    expect(openDataSource(allowed, 1, postgres('postgres')).dialect).toBe('postgres');
    expect(openDataSource(production, 1, postgres('db.example.com')).dialect).toBe('postgres');
  });

  it('refuses incomplete or unsupported settings with CONFIG', () => {
    const cases = [
      { type: 'postgres', user: 'u' },
      { type: 'postgres', host: 'db.example.com' },
      postgres('db.example.com', { port: '0' }),
      postgres('db.example.com', { port: '65536' }),
      postgres('db.example.com', { port: '54x' }),
      postgres('db.example.com', { ssl: 'yes' }),
      { type: 'postgres', hyperdrive: 'NOT_BOUND' },
      { type: 'unsupported', dbType: 'mysql' },
    ] as const;
    for (const config of cases) {
      let caught: unknown;
      try {
        openDataSource(production, 1, config);
      } catch (err) {
        caught = err;
      }
      expect((caught as DataSourceError)?.code, JSON.stringify(config)).toBe('CONFIG');
    }
    expect(openDataSource(production, 1, postgres('db.example.com', { port: '65535' })).dialect).toBe(
      'postgres',
    );
  });

  it('takes only Hyperdrive bindings HYPERDRIVE_BINDINGS lists', () => {
    const bound = { connectionString: 'postgresql://u:secret@10.0.0.5:5432/db' };
    const withBinding = { ...production, ANALYTICS: bound } as unknown as Bindings;
    const config = { type: 'postgres', hyperdrive: 'ANALYTICS' } as const;
    expect(() => openDataSource(withBinding, 1, config)).toThrow(/names no Hyperdrive binding/);
    const listed = { ...withBinding, HYPERDRIVE_BINDINGS: 'OTHER, ANALYTICS' } as Bindings;
    // Hyperdrive's address is the operator's: the private-address rule is for tenants' hosts.
    expect(openDataSource(listed, 1, config).dialect).toBe('postgres');
    // A binding name that is not listed, even one that exists (DB), is refused.
    expect(() => openDataSource(listed, 1, { type: 'postgres', hyperdrive: 'DB' })).toThrow(DataSourceError);
  });
});
