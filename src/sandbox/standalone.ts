import { allSimulators } from './index.js';
import { startSandbox, type SandboxServer } from './server.js';

/** Starts every simulator on its own listener (SANDBOX=1 and `herald sandbox`). */
export function startAllSimulators(
  opts: { host?: string; port?: number; publicUrl?: string } = {},
): Promise<SandboxServer> {
  return startSandbox(allSimulators(), opts);
}

/**
 * `herald sandbox --port P`: runs all simulators standalone until SIGINT/SIGTERM. Point a Herald at it
 * with `SANDBOX_URL=<url>`.
 */
export async function runStandaloneSandbox(opts: { host?: string; port?: number; publicUrl?: string }): Promise<void> {
  const sandbox = await startAllSimulators(opts);
  const names = (
    (await sandbox.app.inject({ method: 'GET', url: '/sandbox' }).then((r) => r.json())) as { simulators: string[] }
  ).simulators;
  process.stderr.write(
    `herald sandbox listening at ${sandbox.url}\n` +
      `simulators: ${names.map((n) => `${sandbox.url}/sandbox/${n}`).join(', ')}\n` +
      `run Herald with SANDBOX_URL=${sandbox.url} to publish to them\n`,
  );
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await sandbox.close();
}
