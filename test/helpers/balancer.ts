import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A round-robin load balancer on loopback, in front of Herald processes: what PUBLIC_URL names when
 * several processes serve one cluster. Each request goes to the next backend; a backend that refuses the
 * connection (a killed process) is skipped and the request goes to the next one, as a balancer's health
 * check would; a GET or HEAD whose backend drops it mid-answer goes to the next one too. Request bodies are buffered so that a refused request can be sent to the next one.
 */
export interface Balancer {
  url: string;
  /** The processes behind it, in order. */
  setBackends(urls: string[]): void;
  /** Requests answered by each backend, by URL. */
  served: Map<string, number>;
  close(): Promise<void>;
}

export async function startBalancer(): Promise<Balancer> {
  let backends: string[] = [];
  let next = 0;
  const served = new Map<string, number>();

  const forward = (backend: string, req: http.IncomingMessage, body: Buffer) =>
    new Promise<http.IncomingMessage>((resolve, reject) => {
      const target = new URL(req.url ?? '/', backend);
      const out = http.request(
        target,
        { method: req.method, headers: { ...req.headers, host: target.host }, agent: false },
        resolve,
      );
      out.on('error', reject);
      out.end(body);
    });

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const tried = new Set<string>();
    while (tried.size < backends.length) {
      const backend = backends[next++ % backends.length];
      if (tried.has(backend)) continue;
      tried.add(backend);
      let answer: http.IncomingMessage;
      try {
        answer = await forward(backend, req, body);
      } catch (error) {
        // Refused: the process is gone, nothing was sent; try the next one. A connection lost after the
        // request went out is the client's to retry (it may have been acted on), except a GET or HEAD,
        // which changes nothing: those go to the next backend, as nginx's default proxy_next_upstream does
        // (a platform fetching a media file from a process killed mid-answer got a 502 and failed the post).
        if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED') continue;
        if (req.method === 'GET' || req.method === 'HEAD') continue;
        res.writeHead(502, { 'content-type': 'text/plain' }).end('the backend dropped the connection');
        return;
      }
      served.set(backend, (served.get(backend) ?? 0) + 1);
      // One request a connection: a kept-alive socket the balancer closes just as the client reuses it
      // would be a reset the client reads as the cluster failing.
      res.writeHead(answer.statusCode ?? 502, { ...answer.headers, connection: 'close' });
      answer.pipe(res);
      return;
    }
    res.writeHead(502, { 'content-type': 'text/plain' }).end('no backend answered');
  });
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setBackends(urls) {
      backends = [...urls];
    },
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
