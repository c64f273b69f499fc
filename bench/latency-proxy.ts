import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback HTTP proxy that adds a uniform random delay in [minMs, maxMs] to every request before
 * passing it to `target`, like a platform reached over the internet. `setEnabled(false)` passes requests
 * through at once (the bench's setup), `calls` counts what went through.
 */
export interface LatencyProxy {
  url: string;
  calls: number;
  setEnabled(on: boolean): void;
  close(): Promise<void>;
}

export async function startLatencyProxy(target: string, minMs: number, maxMs: number): Promise<LatencyProxy> {
  const to = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  let enabled = true;
  const state = { calls: 0 };
  const server = http.createServer((req, res) => {
    state.calls++;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const delay = enabled ? minMs + Math.random() * (maxMs - minMs) : 0;
      setTimeout(() => {
        const upstream = http.request(
          {
            host: to.hostname,
            port: to.port,
            method: req.method,
            path: req.url,
            headers: { ...req.headers, host: to.host },
            agent,
          },
          (up) => {
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          },
        );
        upstream.on('error', (err) => {
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(`proxy: ${err.message}`);
        });
        upstream.end(Buffer.concat(chunks));
      }, delay);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    get calls() {
      return state.calls;
    },
    setEnabled(on: boolean) {
      enabled = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        agent.destroy();
      }),
  };
}
