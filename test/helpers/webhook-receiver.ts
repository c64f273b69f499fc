import http from 'node:http';
import type { AddressInfo } from 'node:net';

interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body exactly as received (what signatures are computed over). */
  raw: string;
  json: any;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedRequest[];
  /** What the next requests get: a status (and optional body), or 'redirect' (302 elsewhere). */
  respondWith(status: number, body?: string): void;
  /** While down, every connection is reset before a request is read (nothing is recorded). */
  setDown(down: boolean): void;
  /** Resolves once `count` requests in total have arrived. */
  waitFor(count: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** A real HTTP receiver on loopback that records every webhook request (on `port`, default any free one). */
export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
  const received: ReceivedRequest[] = [];
  let status = 200;
  let responseBody = '{"ok":true}';
  const waiters: { count: number; resolve: (r: ReceivedRequest[]) => void }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let json: any = null;
      try {
        json = JSON.parse(raw);
      } catch {
        json = null;
      }
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, json });
      if (status >= 300 && status < 400) res.setHeader('location', 'http://127.0.0.1:1/elsewhere');
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(responseBody);
      for (const w of [...waiters]) {
        if (received.length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(received.slice());
        }
      }
    });
  });
  let down = false;
  server.on('connection', (socket) => {
    if (down) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/hook`,
    received,
    respondWith(s, body = s < 300 ? '{"ok":true}' : '{"error":"nope"}') {
      status = s;
      responseBody = body;
    },
    setDown(value) {
      down = value;
      if (value) server.closeAllConnections();
    },
    waitFor(count) {
      if (received.length >= count) return Promise.resolve(received.slice());
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback URL on which nothing listens (a receiver that is down). */
export async function deadUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hook`;
}
