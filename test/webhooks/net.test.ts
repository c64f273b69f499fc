import { describe, expect, it } from 'vitest';
import { assertPublicUrl, isNonPublicAddress, type LookupAll } from '../../src/lib/net.js';

describe('isNonPublicAddress', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    '::127.0.0.1',
    '64:ff9b::a00:1',
    // IPv4-translated (SIIT, ::ffff:0:0:0/96): routed as the IPv4 address in its last 32 bits.
    '::ffff:0:127.0.0.1',
    '::ffff:0:7f00:1',
    '0:0:0:0:ffff:0:a9fe:a9fe',
    '64:ff9b:1::7f00:1',
    '3fff::1',
    '2002:c0a8:101::1',
    '[::1]',
  ])('%s is not public', (address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '2606:4700::1111',
    '::ffff:93.184.216.34',
    '::ffff:0:93.184.216.34',
    '2001:4860:4860::8888',
  ])('%s is public', (address) => {
    expect(isNonPublicAddress(address)).toBe(false);
  });

  it('treats a host name as not public by itself', () => {
    expect(isNonPublicAddress('example.com')).toBe(true);
  });
});

describe('assertPublicUrl', () => {
  const resolvesTo =
    (...addresses: string[]): LookupAll =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('accepts an https host whose every address is public', async () => {
    const res = await assertPublicUrl('https://hooks.example.com/x', {
      allowInsecure: false,
      lookup: resolvesTo('93.184.216.34', '2606:4700::1111'),
    });
    expect(res.addresses).toHaveLength(2);
  });

  it('refuses a host when any one of its addresses is private', async () => {
    await expect(
      assertPublicUrl('https://rebind.example.com/x', {
        allowInsecure: false,
        lookup: resolvesTo('93.184.216.34', '10.0.0.5'),
      }),
    ).rejects.toThrow(/private/);
  });

  it('refuses an unresolvable host and plain http', async () => {
    const fail: LookupAll = async () => {
      throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
    };
    await expect(assertPublicUrl('https://nowhere.invalid/', { allowInsecure: false, lookup: fail })).rejects.toThrow(
      /could not be resolved/,
    );
    await expect(assertPublicUrl('http://93.184.216.34/', { allowInsecure: false })).rejects.toThrow(/https/);
  });

  it('lets the development switch through http and loopback, but never other schemes', async () => {
    await expect(assertPublicUrl('http://127.0.0.1:9/x', { allowInsecure: true })).resolves.toBeTruthy();
    await expect(assertPublicUrl('file:///etc/passwd', { allowInsecure: true })).rejects.toThrow(/https/);
  });
});
