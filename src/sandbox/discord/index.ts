import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formBody } from '../oauth.js';
import { parseMultipart } from '../twitter/multipart.js';
import { hangUp, markDeleted, type Simulator, type SimulatorState } from '../types.js';
import { documentPath, discordOpenApi, invalidFormBody } from './openapi.js';
import { RateLimiter } from './rate-limits.js';
import { discordError, sendFault } from './errors.js';
import { registerMessageEdits } from './edit.js';
import { registerGuildRoutes } from './guilds.js';
import {
  BOT,
  BOT_ID,
  channelJson,
  guildJson,
  messageJson,
  snowflake,
  userJson,
  webhookJson,
  worldOf,
  type SimChannel,
  type SimMessage,
} from './store.js';

/*
 * Discord REST API v10 on loopback: the bot-authorization OAuth2 flow (the consenting user owns two
 * guilds), guild channels, messages (JSON or multipart `payload_json` + `files[n]`, nonce with
 * enforce_nonce, 2,000 characters), crossposts, threads, pins, DMs, members, roles and scheduled events
 * (guilds.ts). Every request to a documented operation is checked against Discord's official OpenAPI
 * document before anything else, and every answer after: a request that breaks it gets Discord's
 * `{code: 50035, message: "Invalid Form Body", errors}`, an answer that breaks it becomes a 500 naming
 * the violation (a simulator bug, never hidden). Rate limits as rate-limits.ts says, unless
 * `_config {rateLimits: false}`.
 *
 * `POST /_inbound {kind: "message", account: channelId | channelName | "dm", text, from?}`: someone writes
 * in the channel (or to the bot in a DM); it shows in the channel's message list.
 */

type Reply = FastifyReply;
const CONTENT_LIMIT = 2000;
const NONCE_WINDOW_MS = 5 * 60_000;

export interface DiscordSimulatorOptions {
  now?: () => Date;
}

export function discordSimulator(opts: DiscordSimulatorOptions = {}): Simulator {
  const now = () => (opts.now ? opts.now() : new Date());
  const limiter = new RateLimiter();
  return {
    platform: 'discord',
    faultOps: ['publish', 'upload', 'token', 'lookup', 'delete', 'destinations', 'message'],
    // rateLimits is the sandbox core's setting (state.config); switching it starts the buckets afresh.
    configure(body) {
      if (typeof body.rateLimits === 'boolean') limiter.clear();
      return {};
    },
    register(app: FastifyInstance, state: SimulatorState) {
      const spec = discordOpenApi();
      const world = () => worldOf(state);

      app.addHook('preHandler', async (request, reply) => {
        const route = request.routeOptions.url ?? '';
        const path = documentPath(route);
        if (!path || route.includes('/oauth2/')) return;
        // https://discord.com/developers/docs/reference#authentication: `Authorization: Bot <token>`; a
        // webhook's execution is authorized by its token in the path instead.
        const webhookCall = route.includes('/webhooks/:webhook_id/:webhook_token');
        const auth = webhookCall
          ? ['', `webhook:${(request.params as { webhook_id: string }).webhook_id}`]
          : /^Bot\s+(\S+)$/.exec(request.headers.authorization ?? '');
        if (!auth) return discordError(reply, 401, 0, '401: Unauthorized');
        if (spec.has(request.method, path)) {
          const problems = spec.operation(request.method, path).validate({
            path: request.params as Record<string, string>,
            query: request.query as Record<string, unknown>,
            body: requestBody(request),
          });
          if (problems.length > 0) return reply.status(400).send(invalidFormBody(problems));
        }
        if (state.config.rateLimits) {
          const params = request.params as Record<string, string>;
          // Windows run on the simulator's clock (a test's fake clock moves them).
          const limited = limiter.check(
            reply,
            auth[1],
            request.method,
            route,
            params.channel_id ?? params.guild_id ?? params.webhook_id ?? '',
            now().getTime(),
          );
          if (limited) return reply.status(429).send(limited);
        }
      });

      app.addHook('onSend', async (request, reply, payload) => {
        const path = documentPath(request.routeOptions.url ?? '');
        if (!path || !spec.has(request.method, path)) return payload;
        const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '';
        // The document describes no server errors (a 502 fault): only 2xx and 4xx answers are checked.
        if (reply.statusCode >= 500) return payload;
        // 4XX answers share one documented shape, keyed `4XX` in the document.
        const check =
          spec.response(request.method, path, reply.statusCode) ??
          spec.response(request.method, path, '4XX' as unknown as number);
        const body = text === '' ? undefined : JSON.parse(text);
        const problems = check
          ? check(body)
          : [{ parameter: 'response', message: `HTTP ${reply.statusCode} is not documented` }];
        if (problems.length === 0) return payload;
        reply.code(500).header('content-type', 'application/json; charset=utf-8');
        return JSON.stringify({
          code: 0,
          message: `The Discord simulator answered outside the OpenAPI document (HTTP ${reply.statusCode} of ${request.method} ${path}): ${problems.map((p) => `${p.parameter} ${p.message}`).join('; ')}`,
        });
      });

      registerOAuth(app, state);

      app.get('/users/@me', async () => ({ ...userJson(BOT), bot: true, mfa_enabled: false, locale: 'en-US' }));

      app.get('/guilds/:guild_id', async (request, reply) => {
        const g = world().guilds.get((request.params as { guild_id: string }).guild_id);
        return g ? guildJson(g) : discordError(reply, 404, 10004, 'Unknown Guild');
      });

      app.get('/guilds/:guild_id/channels', async (request, reply) => {
        const fault = sendFault(state, 'destinations', reply);
        if (fault) return fault === 'sent' ? reply : hangUp(reply);
        const { guild_id } = request.params as { guild_id: string };
        if (!world().guilds.has(guild_id)) return discordError(reply, 404, 10004, 'Unknown Guild');
        return [...world().channels.values()].filter((c) => c.guild_id === guild_id && !c.thread).map(channelJson);
      });

      app.get('/channels/:channel_id', async (request, reply) => {
        const c = world().channels.get((request.params as { channel_id: string }).channel_id);
        return c ? channelJson(c) : discordError(reply, 404, 10003, 'Unknown Channel');
      });

      app.delete('/channels/:channel_id', async (request, reply) => {
        const c = world().channels.get((request.params as { channel_id: string }).channel_id);
        if (!c) return discordError(reply, 404, 10003, 'Unknown Channel');
        world().channels.delete(c.id);
        for (const m of world().messages.values()) {
          if (m.channel_id === c.id && !m.deleted) {
            m.deleted = true;
            markDeleted(state, m.id);
          }
        }
        return channelJson(c);
      });

      registerMessageRoutes(app, state, now);
      registerMessageEdits(app, state, now);
      registerGuildRoutes(app, state, now);

      app.post('/_inbound', async (request, reply) => {
        const b = (request.body ?? {}) as {
          kind?: string;
          account?: string;
          text?: string;
          from?: { id?: string; username?: string };
        };
        if (b.kind !== 'message')
          return reply.status(400).send({
            error: `Discord has no ${b.kind ?? 'such'} items here: only kind "message" (a message in a channel, or a DM to the bot)`,
          });
        if (!b.account || !b.text)
          return reply.status(400).send({ error: 'account (a channel id or name, or "dm") and text are required' });
        const w = world();
        const channel =
          b.account === 'dm'
            ? null
            : ([...w.channels.values()].find((c) => c.id === b.account || c.name === b.account!.replace(/^#/, '')) ??
              null);
        if (b.account !== 'dm' && !channel)
          return reply.status(400).send({ error: `no channel ${b.account} in the simulated guilds` });
        const from = b.from?.id ?? '1100000000000000003';
        const channelId = channel?.id ?? w.dms.get(from) ?? snowflake(w, now());
        if (!channel) w.dms.set(from, channelId);
        const m: SimMessage = {
          id: snowflake(w, now()),
          channel_id: channelId,
          content: b.text,
          timestamp: now().toISOString(),
          author: from,
          attachments: [],
          embeds: [],
          tts: false,
          flags: 0,
        };
        w.messages.set(m.id, m);
        return { id: m.id, channelId };
      });
    },
  };
}

/** The body as the document describes it: JSON, or a multipart form's `payload_json` with its file parts. */
function requestBody(request: FastifyRequest): unknown {
  const type = String(request.headers['content-type'] ?? '');
  if (Buffer.isBuffer(request.body) && type.startsWith('multipart/form-data')) {
    const parts = parseMultipart(request.body, type) ?? [];
    const json = parts.find((p) => p.name === 'payload_json');
    let base: Record<string, unknown> = {};
    try {
      base = json ? (JSON.parse(json.data.toString('utf8')) as Record<string, unknown>) : {};
    } catch {
      base = { payload_json: 'not JSON' };
    }
    for (const p of parts) if (p.filename !== null) base[p.name] = '<binary>';
    return base;
  }
  if (Buffer.isBuffer(request.body) && type.startsWith('application/x-www-form-urlencoded')) return formBody(request);
  return request.body ?? undefined;
}

/**
 * OAuth2 bot authorization (https://discord.com/developers/docs/topics/oauth2#advanced-bot-authorization):
 * the consent auto-approves into `guild_id` (default the first guild), redirecting with `code`, `state`,
 * `guild_id` and `permissions`; the token answer carries the `guild`.
 */
function registerOAuth(app: FastifyInstance, state: SimulatorState): void {
  app.get('/oauth2/authorize', async (request, reply) => {
    const q = request.query as Record<string, string | undefined>;
    const missing = ['client_id', 'redirect_uri', 'response_type', 'scope'].filter((k) => !q[k]);
    if (missing.length)
      return reply.status(400).send({ error: 'invalid_request', error_description: `missing ${missing.join(', ')}` });
    if (!q.scope!.split(' ').includes('bot'))
      return reply
        .status(400)
        .send({ error: 'invalid_scope', error_description: 'this sandbox installs bots: scope must include bot' });
    const w = worldOf(state);
    const guildId = q.guild_id ?? [...w.guilds.keys()][0];
    if (!w.guilds.has(guildId))
      return reply.status(400).send({ error: 'invalid_request', error_description: 'the user does not own guild_id' });
    const code = randomBytes(15).toString('base64url');
    w.codes.set(code, { guildId, redirectUri: q.redirect_uri!, clientId: q.client_id!, used: false });
    const target = new URL(q.redirect_uri!);
    target.searchParams.set('code', code);
    if (q.state) target.searchParams.set('state', q.state);
    target.searchParams.set('guild_id', guildId);
    target.searchParams.set('permissions', q.permissions ?? '0');
    return reply.redirect(target.toString(), 302);
  });

  app.post('/oauth2/token', async (request, reply) => {
    const fault = sendFault(state, 'token', reply);
    if (fault === 'sent') return reply;
    const body = formBody(request);
    const basic = /^Basic\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    const clientId =
      body.client_id ?? (basic ? Buffer.from(basic[1], 'base64').toString('utf8').split(':')[0] : undefined);
    if (!clientId) return reply.status(401).send({ error: 'invalid_client' });
    if (body.grant_type !== 'authorization_code') return reply.status(400).send({ error: 'unsupported_grant_type' });
    const w = worldOf(state);
    const rec = body.code ? w.codes.get(body.code) : undefined;
    if (!rec || rec.used || rec.redirectUri !== body.redirect_uri || rec.clientId !== clientId)
      return reply.status(400).send({ error: 'invalid_grant', error_description: 'Invalid "code" in request.' });
    rec.used = true;
    const answer = {
      access_token: randomBytes(15).toString('base64url'),
      token_type: 'Bearer',
      expires_in: 604800,
      refresh_token: randomBytes(15).toString('base64url'),
      scope: 'bot',
      guild: guildJson(w.guilds.get(rec.guildId)!),
    };
    if (fault === 'ambiguous') return hangUp(reply);
    return answer;
  });
}

function registerMessageRoutes(app: FastifyInstance, state: SimulatorState, now: () => Date): void {
  const world = () => worldOf(state);
  const channelOf = (request: FastifyRequest) =>
    world().channels.get((request.params as { channel_id: string }).channel_id) ?? dmChannel(request);
  const dmChannel = (request: FastifyRequest) => {
    const id = (request.params as { channel_id: string }).channel_id;
    return [...world().dms.values()].includes(id)
      ? ({ id, type: 1, name: '', guild_id: '', position: 0 } as SimChannel)
      : undefined;
  };

  /** Creates a message from a validated body; null when it is refused (the reply is sent). */
  const create = (
    reply: Reply,
    channelId: string,
    body: MessageBody,
    files: Array<{ name: string; filename: string; data: Buffer; contentType: string | null }>,
    threadOf?: string,
    webhook?: SimMessage['webhook'],
  ): SimMessage | null => {
    const content = typeof body.content === 'string' ? body.content : '';
    // https://discord.com/developers/docs/resources/message#create-message: content up to 2,000 characters
    // (the document allows 4,000, a limit of Nitro users, not of bots).
    if ([...content].length > CONTENT_LIMIT) {
      discordError(reply, 400, 50035, 'Invalid Form Body', {
        content: {
          _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${CONTENT_LIMIT} or fewer in length.` }],
        },
      });
      return null;
    }
    if (!content && !body.embeds?.length && !files.length && !body.poll && !body.sticker_ids?.length) {
      discordError(reply, 400, 50006, 'Cannot send an empty message');
      return null;
    }
    const declared = (body.attachments ?? []) as Array<{ id: number | string; filename?: string }>;
    for (const f of files) {
      // https://discord.com/developers/docs/reference#uploading-files: 10 MiB per file without boosts.
      if (f.data.length > 10 * 1024 * 1024) {
        discordError(reply, 413, 40005, 'Request entity too large');
        return null;
      }
    }
    const w = world();
    const nonceKey =
      body.enforce_nonce && body.nonce !== undefined && body.nonce !== null
        ? `${channelId}:${String(body.nonce)}`
        : null;
    if (nonceKey) {
      const seen = w.nonces.get(nonceKey);
      if (seen && now().getTime() - seen.at < NONCE_WINDOW_MS && w.messages.get(seen.id))
        return w.messages.get(seen.id)!;
    }
    const id = snowflake(w, now());
    const attachments = files.map((f, i) => {
      const index = Number(/files\[(\d+)\]/.exec(f.name)?.[1] ?? i);
      const filename = declared.find((a) => Number(a.id) === index)?.filename ?? f.filename;
      const aid = snowflake(w, now());
      const url = `https://cdn.discordapp.com/attachments/${channelId}/${aid}/${filename}`;
      return {
        id: aid,
        filename,
        size: f.data.length,
        url,
        proxy_url: url.replace('cdn.', 'media.'),
        ...(f.contentType ? { content_type: f.contentType } : {}),
      };
    });
    const m: SimMessage = {
      id,
      channel_id: channelId,
      content,
      timestamp: now().toISOString(),
      author: BOT_ID,
      attachments,
      embeds: body.embeds ?? [],
      tts: body.tts === true,
      nonce: body.nonce ?? null,
      flags: 0,
      ...(threadOf ? { thread: threadOf } : {}),
      ...(webhook ? { webhook } : {}),
    };
    w.messages.set(id, m);
    if (nonceKey) w.nonces.set(nonceKey, { id, at: now().getTime() });
    const channel = w.channels.get(channelId);
    const parent = channel?.thread ? (channel.parent_id ?? channelId) : channelId;
    if (channel?.type !== undefined || channelId) {
      state.posts.push({
        id,
        text: content,
        media: attachments.map((a) => ({
          type: (a.content_type ?? '').startsWith('video/')
            ? 'video'
            : (a.content_type ?? '').startsWith('image/')
              ? 'image'
              : 'document',
          url: a.url,
          mimeType: a.content_type,
          size: a.size,
        })),
        replyTo: channel?.thread ? channelId : null,
        author: webhook ? webhook.id : BOT_ID,
        createdAt: m.timestamp,
        destination: parent,
        extra: {
          channelId,
          ...(channel?.thread ? { threadId: channelId } : {}),
          ...(webhook ? { username: webhook.username, avatarUrl: webhook.avatar_url } : {}),
          embeds: m.embeds.length,
          ...(body.poll ? { poll: true } : {}),
          nonce: m.nonce,
        },
      });
    }
    return m;
  };

  app.post('/channels/:channel_id/messages', async (request, reply) => {
    const channel = channelOf(request);
    if (!channel) return discordError(reply, 404, 10003, 'Unknown Channel');
    if (channel.type === 15 || channel.type === 2 || channel.type === 4)
      return discordError(reply, 400, 50008, 'Cannot send messages in a non-text channel');
    const { body, files } = messageParts(request);
    if (files.length) {
      const upload = sendFault(state, 'upload', reply);
      if (upload === 'sent') return reply;
    }
    const fault = sendFault(state, channel.type === 1 ? 'message' : 'publish', reply);
    if (fault === 'sent') return reply;
    const m = create(reply, channel.id, body, files, channel.thread ? channel.id : undefined);
    if (!m) return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    return messageJson(m, world());
  });

  app.get('/channels/:channel_id/messages', async (request, reply) => {
    const fault = sendFault(state, 'lookup', reply);
    if (fault) return fault === 'sent' ? reply : hangUp(reply);
    const channel = channelOf(request);
    if (!channel) return discordError(reply, 404, 10003, 'Unknown Channel');
    const q = request.query as { after?: string; before?: string; limit?: string };
    const limit = Math.min(100, Number(q.limit ?? 50));
    let list = [...world().messages.values()].filter((m) => m.channel_id === channel.id && !m.deleted);
    if (q.after)
      list = list
        .filter((m) => BigInt(m.id) > BigInt(q.after!))
        .sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1))
        .slice(0, limit);
    else
      list = list
        .filter((m) => !q.before || BigInt(m.id) < BigInt(q.before))
        .sort((a, b) => (BigInt(a.id) > BigInt(b.id) ? -1 : 1))
        .slice(0, limit);
    // https://discord.com/developers/docs/resources/message#get-channel-messages: newest first.
    return list
      .sort((a, b) => (BigInt(a.id) > BigInt(b.id) ? -1 : 1))
      .map((m) => messageJson({ ...m, nonce: null }, world()));
  });

  app.delete('/channels/:channel_id/messages/:message_id', async (request, reply) => {
    const fault = sendFault(state, 'delete', reply);
    if (fault) return fault === 'sent' ? reply : hangUp(reply);
    const { channel_id, message_id } = request.params as { channel_id: string; message_id: string };
    const m = world().messages.get(message_id);
    if (!m || m.deleted || m.channel_id !== channel_id) return discordError(reply, 404, 10008, 'Unknown Message');
    m.deleted = true;
    markDeleted(state, message_id);
    return reply.status(204).send();
  });

  app.post('/channels/:channel_id/messages/:message_id/crosspost', async (request, reply) => {
    const { message_id } = request.params as { channel_id: string; message_id: string };
    const channel = channelOf(request);
    const m = world().messages.get(message_id);
    if (!channel || !m || m.deleted || m.channel_id !== channel.id)
      return discordError(reply, 404, 10008, 'Unknown Message');
    if (channel.type !== 5) return discordError(reply, 400, 40033, 'This message has already been crossposted.');
    if (m.flags & 1) return discordError(reply, 400, 40033, 'This message has already been crossposted.');
    m.flags |= 1; // CROSSPOSTED
    const post = state.posts.find((p) => p.id === m.id);
    if (post) post.extra = { ...post.extra, crossposted: true };
    return messageJson(m, world());
  });

  const startThread = (
    reply: Reply,
    parent: { id: string; guild_id: string },
    id: string,
    name: string,
    archive: number | undefined,
    type: number,
  ) => {
    const w = world();
    if (w.channels.has(id)) {
      discordError(reply, 400, 160004, 'A thread has already been created for this message');
      return null;
    }
    const thread = {
      id,
      type,
      name,
      guild_id: parent.guild_id,
      position: 0,
      parent_id: parent.id,
      thread: { archive: archive ?? 4320, owner: BOT_ID },
    };
    w.channels.set(id, thread);
    return thread;
  };

  app.post('/channels/:channel_id/messages/:message_id/threads', async (request, reply) => {
    const channel = channelOf(request);
    const { message_id } = request.params as { message_id: string };
    const m = world().messages.get(message_id);
    if (!channel || !m || m.deleted || m.channel_id !== channel.id)
      return discordError(reply, 404, 10008, 'Unknown Message');
    const b = request.body as { name: string; auto_archive_duration?: number };
    // A thread started from a message has the message's id (https://discord.com/developers/docs/topics/threads).
    const thread = startThread(reply, channel, m.id, b.name, b.auto_archive_duration, channel.type === 5 ? 10 : 11);
    return thread ? reply.status(201).send(channelJson(thread)) : reply;
  });

  app.post('/channels/:channel_id/threads', async (request, reply) => {
    const channel = channelOf(request);
    if (!channel) return discordError(reply, 404, 10003, 'Unknown Channel');
    const b = request.body as {
      name: string;
      auto_archive_duration?: number;
      type?: number;
      message?: Record<string, unknown>;
    };
    if (channel.type === 15) {
      const fault = sendFault(state, 'publish', reply);
      if (fault === 'sent') return reply;
      if (!b.message)
        return discordError(reply, 400, 50035, 'Invalid Form Body', {
          message: { _errors: [{ code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }] },
        });
      const thread = startThread(reply, channel, snowflake(world(), now()), b.name, b.auto_archive_duration, 11);
      if (!thread) return reply;
      const first = create(reply, thread.id, b.message, [], thread.id);
      if (!first) {
        world().channels.delete(thread.id);
        return reply;
      }
      if (fault === 'ambiguous') return hangUp(reply);
      return reply.status(201).send({ ...channelJson(thread), message: messageJson(first, world()) });
    }
    const thread = startThread(
      reply,
      channel,
      snowflake(world(), now()),
      b.name,
      b.auto_archive_duration,
      b.type ?? 12,
    );
    return thread ? reply.status(201).send(channelJson(thread)) : reply;
  });

  app.get('/channels/:channel_id/messages/pins', async (request, reply) => {
    const channel = channelOf(request);
    if (!channel) return discordError(reply, 404, 10003, 'Unknown Channel');
    const pins = [...world().messages.values()]
      .filter((m) => m.channel_id === channel.id && m.pinnedAt && !m.deleted)
      .sort((a, b) => (a.pinnedAt! < b.pinnedAt! ? 1 : -1));
    return {
      items: pins.map((m) => ({ pinned_at: m.pinnedAt, message: messageJson({ ...m, nonce: null }, world()) })),
      has_more: false,
    };
  });

  for (const method of ['PUT', 'DELETE'] as const) {
    app.route({
      method,
      url: '/channels/:channel_id/messages/pins/:message_id',
      handler: async (request, reply) => {
        const { channel_id, message_id } = request.params as { channel_id: string; message_id: string };
        const m = world().messages.get(message_id);
        if (!m || m.deleted || m.channel_id !== channel_id) return discordError(reply, 404, 10008, 'Unknown Message');
        if (method === 'PUT' && !m.pinnedAt) {
          // https://discord.com/developers/docs/resources/message#pin-message: at most 50 pins per channel.
          const pinned = [...world().messages.values()].filter(
            (x) => x.channel_id === channel_id && x.pinnedAt && !x.deleted,
          ).length;
          if (pinned >= 50) return discordError(reply, 400, 30003, 'Maximum number of pins reached (50)');
          m.pinnedAt = now().toISOString();
        }
        if (method === 'DELETE') m.pinnedAt = null;
        return reply.status(204).send();
      },
    });
  }

  // Channel webhooks (https://discord.com/developers/docs/resources/webhook): the bot creates one, and a
  // message executed through it shows the name and avatar the request gives.
  app.get('/channels/:channel_id/webhooks', async (request, reply) => {
    const channel = world().channels.get((request.params as { channel_id: string }).channel_id);
    if (!channel) return discordError(reply, 404, 10003, 'Unknown Channel');
    return [...world().webhooks.values()].filter((w) => w.channel_id === channel.id).map((w) => webhookJson(w, true));
  });
  app.post('/channels/:channel_id/webhooks', async (request, reply) => {
    const channel = world().channels.get((request.params as { channel_id: string }).channel_id);
    if (!channel || channel.thread) return discordError(reply, 404, 10003, 'Unknown Channel');
    const { name } = request.body as { name: string };
    // https://discord.com/developers/docs/resources/webhook#create-webhook: a name without "clyde" or "discord".
    if (/clyde|discord/i.test(name))
      return discordError(reply, 400, 50035, 'Invalid Form Body', {
        name: { _errors: [{ code: 'USERNAME_INVALID_CONTAINS', message: 'Username cannot contain "discord"' }] },
      });
    const hook = {
      id: snowflake(world(), now()),
      token: randomBytes(24).toString('base64url'),
      channel_id: channel.id,
      guild_id: channel.guild_id,
      name,
    };
    world().webhooks.set(hook.id, hook);
    return webhookJson(hook, true);
  });
  app.post('/webhooks/:webhook_id/:webhook_token', async (request, reply) => {
    const { webhook_id, webhook_token } = request.params as { webhook_id: string; webhook_token: string };
    const hook = world().webhooks.get(webhook_id);
    if (!hook || hook.token !== webhook_token) return discordError(reply, 401, 50027, 'Invalid Webhook Token');
    const q = request.query as { wait?: string; thread_id?: string };
    let channelId = hook.channel_id;
    if (q.thread_id) {
      const thread = world().channels.get(q.thread_id);
      if (!thread?.thread || thread.parent_id !== hook.channel_id)
        return discordError(reply, 400, 10003, 'Unknown Channel');
      channelId = thread.id;
    }
    const { body, files } = messageParts(request);
    if (files.length && sendFault(state, 'upload', reply) === 'sent') return reply;
    const fault = sendFault(state, 'publish', reply);
    if (fault === 'sent') return reply;
    const m = create(reply, channelId, body, files, q.thread_id, {
      id: hook.id,
      username: typeof body.username === 'string' && body.username ? body.username : hook.name,
      avatar_url: body.avatar_url ?? null,
    });
    if (!m) return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    return String(q.wait) === 'true' ? messageJson(m, world()) : reply.status(204).send();
  });

  app.post('/users/@me/channels', async (request, reply) => {
    const { recipient_id } = request.body as { recipient_id?: string };
    const w = world();
    const user = recipient_id
      ? [...w.guilds.values()].flatMap((g) => g.members).find((m) => m.user.id === recipient_id)
      : undefined;
    // The bot can only open a DM with a user it shares a guild with.
    if (!user) return discordError(reply, 400, 50007, 'Cannot send messages to this user');
    let id = w.dms.get(recipient_id!);
    if (!id) {
      id = snowflake(w, now());
      w.dms.set(recipient_id!, id);
    }
    return { id, type: 1, flags: 0, last_message_id: null, recipients: [userJson(user.user)] };
  });
}

/**
 * A create-message (or execute-webhook) body, checked against the document by the validation hook: the
 * fields the simulator reads; the others are kept as sent.
 */
interface MessageBody {
  content?: unknown;
  embeds?: unknown[];
  poll?: unknown;
  sticker_ids?: unknown[];
  attachments?: unknown[];
  enforce_nonce?: boolean;
  nonce?: string | number | null;
  tts?: unknown;
  username?: unknown;
  avatar_url?: string | null;
  [key: string]: unknown;
}

/** A message body: JSON, or a multipart form's `payload_json` and its `files[n]` parts. */
function messageParts(request: FastifyRequest): {
  body: MessageBody;
  files: Array<{ name: string; filename: string; data: Buffer; contentType: string | null }>;
} {
  const type = String(request.headers['content-type'] ?? '');
  if (!type.startsWith('multipart/form-data')) return { body: (request.body ?? {}) as MessageBody, files: [] };
  const parts = parseMultipart(request.body as Buffer, type) ?? [];
  const body = JSON.parse(parts.find((p) => p.name === 'payload_json')?.data.toString('utf8') ?? '{}') as MessageBody;
  const files = parts
    .filter((p) => p.filename !== null)
    .map((p) => ({ name: p.name, filename: p.filename!, data: p.data, contentType: p.contentType }));
  return { body, files };
}
