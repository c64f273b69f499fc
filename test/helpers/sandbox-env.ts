import { startSandbox, type SandboxServer } from '../../src/sandbox/server.js';
import type { Simulator } from '../../src/sandbox/types.js';
import { createTestEnv, type TestEnv, type TestEnvOptions } from './context.js';

/** A Herald test env whose adapters talk to loopback simulators (SANDBOX_URL). */
export async function createSandboxEnv(
  simulators: Simulator[],
  opts: TestEnvOptions = {},
): Promise<{ env: TestEnv; sandbox: SandboxServer; close(): Promise<void> }> {
  const sandbox = await startSandbox(simulators);
  const env = await createTestEnv({ ...opts, env: { SANDBOX_URL: sandbox.url, ...opts.env } });
  return {
    env,
    sandbox,
    async close() {
      await env.close();
      await sandbox.close();
    },
  };
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
