import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundFetch, OutboundFetchError, outboundFailureMessage } from '../../src/lib/outbound.js';

// Two loopback servers stand in for the internet: `open` (127.0.0.1) plays a public host where a test
// says so (isBlocked lets 127.0.0.1 through), `internal` (127.0.0.2) an address that stays refused.
const hits: string[] = [];
let open: http.Server;
let internal: http.Server;
let openPort: number;
let internalPort: number;

function serve(name: string, host: string): Promise<http.Server> {
  const srv = http.createServer((req, res) => {
    hits.push(`${name} ${req.method} ${req.url}`);
    if (req.url?.startsWith('/to/'))
      return void res.writeHead(302, { location: decodeURIComponent(req.url.slice(4)) }).end();
    if (req.url === '/loop') return void res.writeHead(302, { location: '/loop' }).end();
    res
      .writeHead(200, { 'content-type': 'text/plain', 'x-from': name })
      .end(req.method === 'HEAD' ? undefined : `hello from ${name}`);
  });
  return new Promise((resolve) => srv.listen(0, host, () => resolve(srv)));
}

beforeAll(async () => {
  open = await serve('open', '127.0.0.1');
  internal = await serve('internal', '127.0.0.2');
  openPort = (open.address() as AddressInfo).port;
  internalPort = (internal.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((r) => open?.close(r));
  await new Promise((r) => internal?.close(r));
});

/** Only 127.0.0.1 counts as public here; everything else (127.0.0.2 included) is refused as usual. */
const onlyOpenIsPublic = (address: string) => address !== '127.0.0.1';

async function refusal(p: Promise<unknown>): Promise<OutboundFetchError> {
  const error = await p.then(
    () => null,
    (e) => e,
  );
  expect(error).toBeInstanceOf(OutboundFetchError);
  return error as OutboundFetchError;
}

describe('outbound fetch of tenant-chosen URLs', () => {
  it('refuses a loopback address and a name that resolves to one (localhost) without sending anything', async () => {
    const strict = createOutboundFetch({ allowPrivate: false });
    const before = hits.length;
    for (const url of [
      `http://127.0.0.1:${openPort}/a.png`,
      `http://localhost:${openPort}/a.png`,
      `http://[::ffff:127.0.0.1]:${openPort}/a.png`,
    ]) {
      const error = await refusal(strict(url, { method: 'HEAD' }));
      expect(error.message).toBe(outboundFailureMessage(url));
    }
    expect(hits.length).toBe(before);
  });

  it('gives one message whatever answers (or does not) at a refused or unreachable address', async () => {
    const strict = createOutboundFetch({ allowPrivate: false });
    const path = '/x.png';
    const messages = new Set<string>();
    for (const origin of [
      `http://127.0.0.1:${openPort}`,
      `http://127.0.0.1:1`,
      `http://10.0.0.1`,
      `http://169.254.169.254`,
      `ftp://example.com`,
    ]) {
      const error = await refusal(strict(origin + path));
      messages.add(error.message.replace(origin, '<origin>'));
    }
    // A public-looking name that does not resolve fails with the same sentence.
    const dns = createOutboundFetch({
      allowPrivate: false,
      lookup: async () => Promise.reject(new Error('ENOTFOUND')),
    });
    messages.add((await refusal(dns(`http://nowhere.test${path}`))).message.replace('http://nowhere.test', '<origin>'));
    expect([...messages]).toEqual([outboundFailureMessage(`<origin>${path}`)]);
  });

  it('re-checks every redirect hop: a public host redirecting to a private one is refused before the second request', async () => {
    const fetchUrl = createOutboundFetch({ allowPrivate: false, isBlocked: onlyOpenIsPublic });
    const target = `http://127.0.0.2:${internalPort}/secret`;
    const before = hits.length;
    await refusal(fetchUrl(`http://127.0.0.1:${openPort}/to/${encodeURIComponent(target)}`));
    expect(hits.slice(before)).toEqual([`open GET /to/${encodeURIComponent(target)}`]);
  });

  it('follows redirects between allowed addresses, and stops after five', async () => {
    const fetchUrl = createOutboundFetch({ allowPrivate: false, isBlocked: onlyOpenIsPublic });
    const res = await fetchUrl(`http://127.0.0.1:${openPort}/to/${encodeURIComponent('/final')}`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello from open');
    const before = hits.length;
    await refusal(fetchUrl(`http://127.0.0.1:${openPort}/loop`));
    expect(hits.length - before).toBe(6);
  });

  it('connects to the address it checked: one lookup per hop, its answer used for the connection', async () => {
    const asked: string[] = [];
    // A rebinding resolver: public the first time, private after. The connection must use the first answer.
    const lookup = async (host: string) => {
      asked.push(host);
      return asked.length === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '127.0.0.2', family: 4 }];
    };
    const fetchUrl = createOutboundFetch({ allowPrivate: false, isBlocked: onlyOpenIsPublic, lookup });
    const res = await fetchUrl(`http://media.example.test:${openPort}/pic.png`);
    expect(res.headers.get('x-from')).toBe('open');
    expect(asked).toEqual(['media.example.test']);
  });

  it('reaches private addresses only with allowPrivate (development)', async () => {
    const dev = createOutboundFetch({ allowPrivate: true });
    const res = await dev(`http://127.0.0.2:${internalPort}/ok`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-from')).toBe('internal');
  });
});
