import { applyMetrics } from './metrics.js';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { inboundProblem } from './inbound-guard.js';
import { FAULT_KINDS, FAULT_OPS, FaultInjector, type FaultKind, type FaultOp } from './faults.js';
import { RateLimiter } from './rate-limits.js';
import { DEFAULT_SIMULATOR_CONFIG, type Simulator, type SimulatorState } from './types.js';

export interface SandboxServer {
  app: FastifyInstance;
  /** Base URL, e.g. http://127.0.0.1:4100 (simulators live under /sandbox/<platform>/). */
  url: string;
  state(platform: string): SimulatorState;
  close(): Promise<void>;
}

/**
 * All simulators in one Fastify app. Each gets /sandbox/<platform>/ with the platform's own routes, plus
 * the framework's `_inspect` (what was published), `_faults` (make the next calls of an operation fail)
 * and `_config` (the simulated platform's settings: `processingMs`). `_inbound` is the simulator's own;
 * one without an inbox answers it 400.
 */
export async function buildSandboxApp(simulators: Simulator[], baseUrl: () => string) {
  const app = Fastify({ logger: false, bodyLimit: 512 * 1024 * 1024 });
  // Raw bodies (media uploads) for any content type a simulator does not parse itself.
  app.addContentTypeParser('*', (_req, payload, done) => {
    const chunks: Buffer[] = [];
    payload.on('data', (c: Buffer) => chunks.push(c));
    payload.on('end', () => done(null, Buffer.concat(chunks)));
    payload.on('error', done);
  });
  const states = new Map<string, SimulatorState>();
  for (const sim of simulators) {
    const config = {
      ...DEFAULT_SIMULATOR_CONFIG,
      latencyMs: [...DEFAULT_SIMULATOR_CONFIG.latencyMs] as [number, number],
    };
    const state: SimulatorState = {
      platform: sim.platform,
      posts: [],
      faults: new FaultInjector(),
      config,
      data: new Map(),
      calls: [],
      baseUrl: () => `${baseUrl()}/sandbox/${sim.platform}`,
      limits: new RateLimiter(sim.now ?? Date.now, () => config.rateLimits),
    };
    states.set(sim.platform, state);
    await app.register(
      async (scope) => {
        scope.addHook('onRequest', async (request) => {
          if (!request.url.includes('/_'))
            state.calls.push({ method: request.method, path: request.url, at: new Date().toISOString() });
        });
        // `latencyMs`: the platform's own routes answer after a uniform random delay, as over the internet.
        // Real time, not the simulator's clock: it stands for the network, not for the platform's windows.
        scope.addHook('onRequest', async (request) => {
          const [min, max] = state.config.latencyMs;
          if (max <= 0 || request.url.includes('/_')) return;
          await new Promise((resolve) => setTimeout(resolve, min + Math.random() * (max - min)));
        });
        // Every `_inbound` body is an item the platform would have accepted (inbound-guard.ts).
        scope.addHook('preHandler', async (request, reply) => {
          if (request.method !== 'POST' || !request.url.split('?')[0].endsWith('/_inbound')) return;
          const problem = inboundProblem(request.body, sim.inboundTextLimits);
          if (problem) return reply.status(400).send({ error: problem });
        });
        scope.get('/_inspect', async () => ({ posts: state.posts, faults: state.faults.pending }));
        scope.post<{ Body: { kind?: string; count?: number; after?: number; op?: string } }>(
          '/_faults',
          async (request, reply) => {
            const { kind, count, after = 0, op = 'publish' } = request.body ?? {};
            if (!FAULT_OPS.includes(op as FaultOp)) {
              return reply.status(400).send({ error: `op must be one of ${FAULT_OPS.join(', ')}` });
            }
            if (!sim.faultOps.includes(op as FaultOp)) {
              return reply.status(400).send({
                error: `the ${sim.platform} simulator has no ${op} operation (it has ${sim.faultOps.join(', ')})`,
              });
            }
            if (count === 0) {
              state.faults.set('rejected', 0, 0, op as FaultOp);
              return { ok: true, faults: state.faults.pending };
            }
            if (
              !FAULT_KINDS.includes(kind as FaultKind) ||
              !Number.isInteger(count) ||
              (count as number) < 0 ||
              !Number.isInteger(after) ||
              after < 0
            ) {
              return reply.status(400).send({
                error: `kind must be one of ${FAULT_KINDS.join(', ')}, count an integer >= 0 and after an integer >= 0`,
              });
            }
            state.faults.set(kind as FaultKind, count as number, after, op as FaultOp);
            return { ok: true, faults: state.faults.pending };
          },
        );
        scope.post<{ Body: { processingMs?: unknown; rateLimits?: unknown; latencyMs?: unknown } | null }>(
          '/_config',
          async (request, reply) => {
            const { processingMs, rateLimits, latencyMs } = request.body ?? {};
            if (
              processingMs !== undefined &&
              (!Number.isInteger(processingMs) || (processingMs as number) < 0 || (processingMs as number) > 86_400_000)
            ) {
              return reply
                .status(400)
                .send({ error: 'processingMs must be an integer of milliseconds between 0 and 86400000' });
            }
            if (rateLimits !== undefined && typeof rateLimits !== 'boolean') {
              return reply.status(400).send({ error: 'rateLimits must be true or false' });
            }
            const range = latencyMs as number[] | undefined;
            if (
              range !== undefined &&
              (!Array.isArray(range) ||
                range.length !== 2 ||
                !range.every((n) => Number.isInteger(n) && n >= 0 && n <= 60_000) ||
                range[0] > range[1])
            ) {
              return reply
                .status(400)
                .send({ error: 'latencyMs must be [min, max]: integers of milliseconds, 0 <= min <= max <= 60000' });
            }
            const own = sim.configure?.((request.body ?? {}) as Record<string, unknown>, state);
            if (own && typeof own.error === 'string') return reply.status(400).send({ error: own.error });
            if (processingMs !== undefined) state.config.processingMs = processingMs as number;
            if (rateLimits !== undefined) state.config.rateLimits = rateLimits as boolean;
            if (range !== undefined) state.config.latencyMs = [range[0], range[1]];
            return { ...state.config, ...own };
          },
        );
        scope.post('/_metrics', async (request, reply) => {
          if (!sim.insights)
            return reply.status(400).send({ error: `the ${sim.platform} simulator has no insights API` });
          const problem = applyMetrics(state, request.body);
          if (problem) return reply.status(400).send({ error: problem });
          return { ok: true };
        });
        scope.post('/_reset', async () => {
          state.posts.length = 0;
          state.calls.length = 0;
          state.data.clear();
          state.faults.clear();
          state.limits.clear();
          Object.assign(state.config, DEFAULT_SIMULATOR_CONFIG, { latencyMs: [...DEFAULT_SIMULATOR_CONFIG.latencyMs] });
          return { ok: true };
        });
        // A simulator without an inbox (no messages, comments or reviews to inject) answers `_inbound`
        // 400 as docs/sandbox.md says of a missing capability; one that has an inbox registers its own.
        // So with `_delete` (the account's owner deletes a post on the platform, outside Herald).
        let ownInbound = false;
        let ownDelete = false;
        scope.addHook('onRoute', (route) => {
          if (route.url.endsWith('/_inbound')) ownInbound = true;
          if (route.url.endsWith('/_delete')) ownDelete = true;
        });
        await sim.register(scope, state);
        if (!ownInbound) {
          scope.post('/_inbound', async (_request, reply) =>
            reply.status(400).send({
              error: `the ${sim.platform} simulator has no inbox: its platform's API reads no messages, comments or reviews Herald serves`,
            }),
          );
        }
        if (!ownDelete) {
          scope.post('/_delete', async (_request, reply) =>
            reply.status(400).send({
              error: `the ${sim.platform} simulator cannot delete a post outside Herald (no _delete)`,
            }),
          );
        }
      },
      { prefix: `/sandbox/${sim.platform}` },
    );
  }
  app.get('/sandbox', async () => ({ simulators: [...states.keys()] }));
  return { app, states };
}

/** Starts the simulators on a loopback port (tests, `herald sandbox`, SANDBOX=1). */
export async function startSandbox(
  simulators: Simulator[],
  opts: { host?: string; port?: number; publicUrl?: string } = {},
) {
  let url = '';
  const { app, states } = await buildSandboxApp(simulators, () => url);
  await app.listen({ host: opts.host ?? '127.0.0.1', port: opts.port ?? 0 });
  const addr = app.server.address() as AddressInfo;
  url = opts.publicUrl ?? `http://${opts.host ?? '127.0.0.1'}:${addr.port}`;
  const server: SandboxServer = {
    app,
    url,
    state(platform) {
      const s = states.get(platform);
      if (!s) throw new Error(`no simulator for ${platform}`);
      return s;
    },
    close: () => app.close(),
  };
  return server;
}
