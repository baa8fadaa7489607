import { describe, expect, it } from 'vitest';
import { webhookUrlProblem } from '../../src/core/webhook-url';

describe('chat webhook URLs', () => {
  it.each([
    'https://chat.example.com/hooks/T000/B000',
    'https://hooks.slack.com/services/T/B/X',
    'https://8.8.8.8/hook',
    'https://[2606:4700:4700::1111]/hook',
    'https://chat.example.com:8443/hook',
    'https://172.32.0.1/hook',
    'https://100.128.0.1/hook',
  ])('accepts https to a public host: %s', (url) => {
    expect(webhookUrlProblem(url)).toBeNull();
  });

  it.each([
    ['http://chat.example.com/hook', 'http'],
    ['ftp://chat.example.com/hook', 'another scheme'],
    ['not a url', 'garbage'],
  ])('refuses %s (%s)', (url) => {
    expect(webhookUrlProblem(url)).not.toBeNull();
  });

  it.each([
    ['https://127.0.0.1/', 'loopback, dotted'],
    ['https://2130706433/', 'loopback, decimal'],
    ['https://0177.0.0.1/', 'loopback, octal'],
    ['https://017700000001/', 'loopback, one octal number'],
    ['https://0x7f.1/', 'loopback, hex and short'],
    ['https://0x7f000001/', 'loopback, one hex number'],
    ['https://127.1/', 'loopback, short'],
    ['https://127.0.0.1./', 'loopback, trailing dot'],
    ['https://10.1.2.3/', 'private 10/8'],
    ['https://167772161/', 'private 10/8, decimal'],
    ['https://172.16.0.1/', 'private 172.16/12'],
    ['https://172.31.255.255/', 'private 172.16/12, top'],
    ['https://192.168.1.1/', 'private 192.168/16'],
    ['https://0xc0.0xa8.1.1/', 'private 192.168/16, hex'],
    ['https://100.64.0.1/', 'carrier-grade NAT 100.64/10'],
    ['https://169.254.169.254/', 'link-local (metadata)'],
    ['https://0.0.0.0/', 'unspecified'],
    ['https://0/', 'unspecified, one number'],
    ['https://224.0.0.1/', 'multicast'],
    ['https://255.255.255.255/', 'broadcast'],
    ['https://[::1]/', 'IPv6 loopback'],
    ['https://[0:0:0:0:0:0:0:1]/', 'IPv6 loopback, long'],
    ['https://[::]/', 'IPv6 unspecified'],
    ['https://[fc00::1]/', 'IPv6 unique local fc00::/7'],
    ['https://[fd12:3456::1]/', 'IPv6 unique local fd'],
    ['https://[fe80::1]/', 'IPv6 link-local'],
    ['https://[febf::1]/', 'IPv6 link-local, top of fe80::/10'],
    ['https://[ff02::1]/', 'IPv6 multicast'],
    ['https://[::ffff:127.0.0.1]/', 'IPv4-mapped loopback'],
    ['https://[::ffff:7f00:1]/', 'IPv4-mapped loopback, hex'],
    ['https://[::ffff:10.0.0.1]/', 'IPv4-mapped private'],
    ['https://[::ffff:169.254.169.254]/', 'IPv4-mapped link-local'],
    ['https://[0:0:0:0:0:ffff:c0a8:101]/', 'IPv4-mapped private, long'],
    ['https://[::127.0.0.1]/', 'IPv4-compatible loopback'],
    ['https://[64:ff9b::a00:1]/', 'NAT64 of a private address'],
    ['https://localhost/', 'localhost'],
    ['https://LOCALHOST./', 'localhost, upper case and trailing dot'],
    ['https://api.localhost/', '*.localhost'],
    ['https://intranet/', 'a single label'],
  ])('refuses %s (%s)', (url) => {
    expect(webhookUrlProblem(url)).toMatch(/public host|localhost|single label/);
  });
});
