import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FaultOp } from '../faults.js';
import { hangUp, type Simulator, type SimulatorState } from '../types.js';
import { SlackError } from './call.js';
import { slackMethods } from './methods.js';
import { registerSlackOAuth } from './oauth.js';
import { slackOpenApi } from './openapi.js';
import { slackStore, workspaceOf, type SlackStore } from './store.js';
import { registerSlackControls } from './controls.js';

export interface SlackSimulatorOptions {
  /** Clock for message timestamps, token expiry and rate limits. Default: real time. */
  now?: () => Date;
}

/** Which fault operation a method's calls count as (`POST /_faults {op}`). */
const FAULT_OP: Record<string, FaultOp> = {
  'chat.postMessage': 'publish',
  'chat.update': 'publish',
  'files.completeUploadExternal': 'publish',
  'files.getUploadURLExternal': 'upload',
  'conversations.history': 'lookup',
  'conversations.replies': 'lookup',
  'chat.delete': 'delete',
  'files.delete': 'delete',
  'conversations.list': 'destinations',
  'conversations.join': 'destinations',
  'oauth.v2.access': 'token',
};

/** The error a `rejected` fault answers, per operation: one the method documents. */
const REJECTED: Partial<Record<FaultOp, string>> = {
  publish: 'is_archived',
  upload: 'invalid_length',
  lookup: 'channel_not_found',
  delete: 'cant_delete_message',
  destinations: 'missing_scope',
  token: 'invalid_code',
};

/** Methods whose `rejected` fault differs from their operation's (one of the method's own errors). */
const REJECTED_BY_METHOD: Record<string, string> = { 'chat.update': 'cant_update_message' };

/** Every argument of a call: the query and the body (a form, or JSON whose non-strings count as their JSON). */
function argumentsOf(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries((request.query ?? {}) as Record<string, unknown>))
    if (typeof v === 'string') out[k] = v;
  const body = request.body as unknown;
  if (Buffer.isBuffer(body) || typeof body === 'string') {
    for (const [k, v] of new URLSearchParams(body.toString())) out[k] = v;
  } else if (body && typeof body === 'object') {
    for (const [k, v] of Object.entries(body as Record<string, unknown>))
      if (v !== undefined && v !== null) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return out;
}

/**
 * Slack's Web API on loopback (`/sandbox/slack/api/<method>`, GET or POST, form or JSON bodies, the
 * token as `Authorization: Bearer` or a `token` argument), its OAuth v2 install
 * (`/oauth/v2/authorize`, `oauth.v2.access`), the signed upload URLs of the external file upload
 * (`/upload/v1/<file>`), and the two workspaces the consenting user installs the app in (store.ts).
 * Every call is checked against Slack's official OpenAPI document before anything else (a call that
 * breaks it answers `invalid_arguments`, as Slack does), and every answer after (one that breaks it
 * becomes a 500 naming the violation: a simulator bug, never hidden). Rate limits are Slack's tiers
 * (rate-limits.ts), answered with 429 and `Retry-After`.
 */
export function slackSimulator(opts: SlackSimulatorOptions = {}): Simulator {
  const now = () => (opts.now ? opts.now() : new Date());
  return {
    platform: 'slack',
    faultOps: ['publish', 'upload', 'lookup', 'delete', 'destinations', 'token'],
    configure(body, state) {
      const store = slackStore(state);
      // rateLimits is the sandbox core's setting (state.config), like every simulator's.
      if (body.tokenRotation !== undefined && typeof body.tokenRotation !== 'boolean')
        return { error: 'tokenRotation must be a boolean' };
      const window = body.editWindowMinutes;
      if (window !== undefined && window !== null && !(Number.isInteger(window) && (window as number) >= 0))
        return { error: 'editWindowMinutes must be null or a whole number of minutes' };
      if (typeof body.tokenRotation === 'boolean') store.settings.tokenRotation = body.tokenRotation;
      if (window !== undefined) store.settings.editWindowMinutes = window as number | null;
      return { ...store.settings };
    },
    register(app: FastifyInstance, state: SimulatorState) {
      const spec = slackOpenApi();
      const methods = slackMethods(state, now);

      /** Sends an answer after checking it against the method's documented schema. */
      const answer = (reply: FastifyReply, method: string, status: number, body: Record<string, unknown>) => {
        const problems = spec.has(method) ? spec.method(method).answer(body) : [];
        if (problems.length)
          return reply.status(500).send({
            ok: false,
            error: 'fatal_error',
            simulator_bug: `answer of ${method} violates the Slack OpenAPI document`,
            problems,
          });
        return reply.status(status).send(body);
      };

      app.route({
        method: ['GET', 'POST'],
        url: '/api/:method',
        handler: async (request, reply) => {
          const method = (request.params as { method: string }).method;
          const store = slackStore(state);
          if (!methods.has(method) || !spec.has(method))
            return reply.status(404).send({ ok: false, error: 'unknown_method' });
          const check = spec.method(method);
          const args = argumentsOf(request);
          const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
          const token = bearer ?? args.token;
          delete args.token;
          // https://api.slack.com/web#posting_json: a JSON body must carry the token in the header.
          if (
            !bearer &&
            String(request.headers['content-type'] ?? '').startsWith('application/json') &&
            check.needsToken
          ) {
            return answer(reply, method, 200, { ok: false, error: 'not_authed' });
          }
          const problems = check.validate(args);
          if (problems.length) {
            return answer(reply, method, 200, {
              ok: false,
              error: 'invalid_arguments',
              response_metadata: {
                messages: problems.map((p) => `[ERROR] ${p.parameter ? `${p.parameter}: ` : ''}${p.message}`),
              },
            });
          }
          let team: string | null = null;
          if (check.needsToken) {
            const grant = token ? store.tokens.get(token) : undefined;
            const error = !token
              ? 'not_authed'
              : !grant
                ? 'invalid_auth'
                : grant.revoked
                  ? 'token_revoked'
                  : grant.expiresAt !== null && grant.expiresAt <= now().getTime()
                    ? 'token_expired'
                    : null;
            if (error) return answer(reply, method, 200, { ok: false, error });
            team = grant!.team;
          }
          if (state.config.rateLimits && team) {
            const wait = store.limits.take(method, team, args.channel ?? args.channel_id ?? null, now().getTime());
            if (wait > 0)
              return answer(reply.header('retry-after', String(wait)), method, 429, {
                ok: false,
                error: 'ratelimited',
              });
          }
          const op = FAULT_OP[method];
          const fault = op ? state.faults.take(op) : null;
          // A fault throttles like a method's exhausted minute window (Tier 1-4): Retry-After 30.
          if (fault === 'rate_limited')
            return answer(reply.header('retry-after', '30'), method, 429, { ok: false, error: 'ratelimited' });
          if (fault === 'unavailable') return answer(reply, method, 503, { ok: false, error: 'service_unavailable' });
          if (fault === 'auth')
            return answer(reply, method, 200, {
              ok: false,
              error: op === 'token' ? 'invalid_refresh_token' : 'invalid_auth',
            });
          if (fault === 'rejected')
            return answer(reply, method, 200, {
              ok: false,
              error: REJECTED_BY_METHOD[method] ?? REJECTED[op!] ?? 'invalid_arguments',
            });
          let body: Record<string, unknown>;
          try {
            body = await methods.call(method, { args, team, ws: team ? workspaceOf(store, team) : null, request });
          } catch (error) {
            if (!(error instanceof SlackError)) throw error;
            return answer(reply, method, 200, { ok: false, error: error.code });
          }
          // The call took effect; the answer is lost, as after a timeout.
          if (fault === 'ambiguous') return hangUp(reply);
          return answer(reply, method, 200, { ok: true, ...body });
        },
      });

      // Step 2 of the external upload: the bytes, to the URL files.getUploadURLExternal signed.
      app.post('/upload/v1/:fileId', async (request, reply) => {
        const store: SlackStore = slackStore(state);
        const file = store.files.get((request.params as { fileId: string }).fileId);
        const fault = state.faults.take('upload');
        if (fault === 'rate_limited')
          return reply.status(429).header('retry-after', '7').type('text/plain').send('rate limited');
        if (fault === 'unavailable') return reply.status(503).type('text/plain').send('upload service unavailable');
        if (fault === 'rejected' || fault === 'auth')
          return reply.status(400).type('text/plain').send('upload refused');
        if (!file || file.received !== null)
          return reply.status(404).type('text/plain').send('upload url unknown or used');
        const bytes = Buffer.isBuffer(request.body)
          ? request.body
          : Buffer.from(typeof request.body === 'string' ? request.body : JSON.stringify(request.body ?? ''));
        if (bytes.length !== file.length)
          return reply
            .status(400)
            .type('text/plain')
            .send(`length ${bytes.length} does not match the ${file.length} declared`);
        file.received = bytes.length;
        file.mimetype = String(request.headers['content-type'] ?? 'application/octet-stream').split(';')[0];
        if (fault === 'ambiguous') return hangUp(reply);
        return reply.type('text/plain').send(`OK - ${bytes.length}`);
      });

      registerSlackOAuth(app, state, now);
      registerSlackControls(app, state, now);
    },
  };
}
