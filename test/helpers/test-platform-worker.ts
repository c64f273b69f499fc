/*
 * A worker process for the engine's process tests: the real context and job runner (src/worker.ts) with
 * test-platform adapters (bluesky, twitter) pointed at the simulator in TEST_PLATFORM_URL. Start it with
 * `node --import tsx test/helpers/test-platform-worker.ts`; it prints "ready" once it polls for jobs.
 * Database, secret and runner settings come from the usual environment variables. TEST_CLOCK_AT (ISO)
 * stops the worker's clock at that instant (a fake clock, so a test can run a worker at a given week).
 * TEST_PLATFORM_INSIGHTS=1 gives the adapters an analytics group reading the simulator's insights.
 */
import { loadConfig } from '../../src/config.js';
import { createContext } from '../../src/context.js';
import { FakeClock } from '../../src/lib/clock.js';
import { PlatformRegistry } from '../../src/platforms/registry.js';
import { createWorker } from '../../src/worker.js';
import { createTestPlatformAdapter } from './test-platform-adapter.js';

const simUrl = process.env.TEST_PLATFORM_URL;
if (!simUrl) {
  process.stderr.write('TEST_PLATFORM_URL is required\n');
  process.exit(2);
}
const workerTag = process.env.TEST_WORKER_TAG || `pid-${process.pid}`;
const config = loadConfig(process.env);
const platforms = new PlatformRegistry(
  (['bluesky', 'twitter'] as const).map((platform) =>
    createTestPlatformAdapter({
      platform,
      baseUrl: simUrl,
      workerTag,
      insights: process.env.TEST_PLATFORM_INSIGHTS === '1',
    }),
  ),
);
const clockAt = process.env.TEST_CLOCK_AT;
const ctx = await createContext(config, { platforms, ...(clockAt ? { clock: new FakeClock(clockAt) } : {}) });
const worker = await createWorker(ctx, { workerId: `${workerTag}-${process.pid}` });
worker.start();
process.stdout.write('ready\n');

const stop = async () => {
  await worker.stop();
  await ctx.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
