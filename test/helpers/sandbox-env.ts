import net from 'node:net';
import { buildApp, type App } from '../../src/http/app.js';
import { startSandbox, type SandboxServer } from '../../src/sandbox/server.js';
import type { Simulator } from '../../src/sandbox/types.js';
import { createTestEnv, type TestEnv, type TestEnvOptions } from './context.js';

/** A Herald test env whose adapters talk to loopback simulators (SANDBOX_URL). */
export async function createSandboxEnv(
  simulators: Simulator[],
  opts: TestEnvOptions & { publicListener?: boolean } = {},
): Promise<{ env: TestEnv; sandbox: SandboxServer; publicUrl: string | null; close(): Promise<void> }> {
  const sandbox = await startSandbox(simulators);
  // The port is held from here until just before Herald listens on it: creating the env (migrations)
  // takes long enough for a parallel test file to be handed the same free port otherwise.
  const held = opts.publicListener ? await holdPort() : null;
  const port = held?.port ?? null;
  const publicUrl = port ? `http://127.0.0.1:${port}` : null;
  // Media and link pages in these tests are served on loopback: OUTBOUND_ALLOW_PRIVATE (development) lets Herald fetch them.
  const env = await createTestEnv({
    ...opts,
    env: {
      SANDBOX_URL: sandbox.url,
      OUTBOUND_ALLOW_PRIVATE: '1',
      ...(publicUrl ? { PUBLIC_URL: publicUrl } : {}),
      ...opts.env,
    },
  });
  // The listener at PUBLIC_URL, where platforms redirect the browser (the SDK uses the env's own).
  let publicApp: App | null = null;
  if (port) {
    publicApp = await buildApp(env.ctx);
    await held!.release();
    await publicApp.listen({ host: '127.0.0.1', port });
  }
  return {
    env,
    sandbox,
    publicUrl,
    async close() {
      await publicApp?.close();
      await env.close();
      await sandbox.close();
    },
  };
}

/** A free loopback port, kept listening (so nobody else is given it) until `release`. */
async function holdPort(): Promise<{ port: number; release(): Promise<void> }> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as net.AddressInfo).port;
  return { port, release: () => new Promise<void>((r) => srv.close(() => r())) };
}

export async function freePort(): Promise<number> {
  const held = await holdPort();
  await held.release();
  return held.port;
}

/** JSON helper for the simulators' control endpoints (`_inspect`, `_faults`, ...). */
export async function sandboxCall(sandbox: SandboxServer, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(sandbox.url + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return res.json();
}
