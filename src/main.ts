import { ConfigError, loadConfig } from './config.js';
import { createContext } from './context.js';
import { bootstrapOwner } from './domain/users.js';
import { buildApp, type App } from './http/app.js';
import type { JobRunner } from './jobs/runner.js';
import { withSandboxUrl } from './platforms/config.js';
import { startAllSimulators } from './sandbox/standalone.js';
import { assertSharedStorage, StorageMismatchError } from './storage/identity.js';
import { createWorker } from './worker.js';

/** Process shell: config -> context -> migrate -> http + worker -> graceful stop. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`herald: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  // SANDBOX=1: the platform simulators run in this process on their own port; adapters point at them.
  const sandbox =
    config.sandbox && !config.env.SANDBOX_URL
      ? await startAllSimulators({ host: config.host, port: config.sandboxPort })
      : null;
  if (sandbox) config = withSandboxUrl(config, sandbox.url);
  const ctx = await createContext(config);
  const log = ctx.log;
  if (sandbox) log.info({ sandboxUrl: sandbox.url }, 'sandbox simulators listening (SANDBOX=1)');

  let app: App | null = null;
  let worker: JobRunner | null = null;
  let stopping = false;
  let startup: Promise<void> = Promise.resolve();
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'herald stopping: no new work, draining');
    const force = setTimeout(() => {
      log.error('graceful stop timed out; exiting');
      process.exit(1);
    }, 30_000);
    force.unref();
    // NOTE: a signal can arrive while starting; let start-up settle so nothing it opens is left behind.
    await startup.catch(() => {});
    await app?.close(); // stops accepting, waits for in-flight requests
    await worker?.stop(); // stops claiming, waits for running jobs
    await sandbox?.close();
    await ctx.close();
    log.info('herald stopped');
    process.exit(0);
  };
  // Registered before anything starts, so a SIGTERM at any moment of start-up is a graceful stop.
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));

  startup = (async () => {
    try {
      await assertSharedStorage(ctx);
    } catch (error) {
      if (!(error instanceof StorageMismatchError)) throw error;
      process.stderr.write(`herald: ${error.message}\n`);
      await ctx.close();
      process.exit(2);
    }
    const owner = await bootstrapOwner(ctx.db, ctx.clock.now());
    if (owner) {
      // Printed once, on the first start with an empty database; only its hash is stored.
      process.stdout.write(
        `\nHerald created the owner user ${owner.user.email} (plan unlimited).\n` +
          `API key (shown once, store it now):\n\n  ${owner.apiKey}\n\n`,
      );
    }
    if (config.role !== 'worker' && !stopping) {
      app = await buildApp(ctx);
      await app.listen({ host: config.host, port: config.port });
      log.info({ url: app.listeningOrigin, publicUrl: config.publicUrl, dialect: ctx.db.dialect }, 'herald listening');
    }
    if (config.role !== 'api' && !stopping) {
      worker = await createWorker(ctx);
      worker.start();
      log.info({ workerId: worker.workerId }, 'herald worker started');
    }
  })();
  await startup;
}

main().catch((error) => {
  process.stderr.write(`herald: failed to start: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
