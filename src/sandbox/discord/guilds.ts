import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SimulatorState } from '../types.js';
import { discordError } from './errors.js';
import { eventJson, memberJson, roleJson, snowflake, worldOf, type SimEvent, type SimGuild } from './store.js';

/*
 * Guild members, roles and scheduled events
 * (https://discord.com/developers/docs/resources/guild, .../guild-scheduled-event).
 */

export function registerGuildRoutes(app: FastifyInstance, state: SimulatorState, now: () => Date): void {
  const guildOf = (request: FastifyRequest, reply: FastifyReply): SimGuild | null => {
    const g = worldOf(state).guilds.get((request.params as { guild_id: string }).guild_id);
    if (!g) discordError(reply, 404, 10004, 'Unknown Guild');
    return g ?? null;
  };
  const memberOf = (g: SimGuild, id: string) => g.members.find((m) => m.user.id === id);

  app.get('/guilds/:guild_id/roles', async (request, reply) => {
    const g = guildOf(request, reply);
    return g ? g.roles.map(roleJson) : reply;
  });
  app.post('/guilds/:guild_id/roles', async (request, reply) => {
    const g = guildOf(request, reply);
    if (!g) return reply;
    const b = (request.body ?? {}) as {
      name?: string;
      color?: number;
      hoist?: boolean;
      mentionable?: boolean;
      permissions?: string;
    };
    const role = {
      id: snowflake(worldOf(state), now()),
      name: b.name ?? 'new role',
      color: b.color ?? 0,
      position: 1,
      permissions: b.permissions ?? '0',
      managed: false,
      mentionable: b.mentionable ?? false,
      hoist: b.hoist ?? false,
    };
    g.roles.push(role);
    return roleJson(role);
  });
  app.patch('/guilds/:guild_id/roles/:role_id', async (request, reply) => {
    const g = guildOf(request, reply);
    if (!g) return reply;
    const role = g.roles.find((r) => r.id === (request.params as { role_id: string }).role_id);
    if (!role) return discordError(reply, 404, 10011, 'Unknown Role');
    if (role.managed) return discordError(reply, 403, 50013, 'Missing Permissions');
    const b = (request.body ?? {}) as Record<string, unknown>;
    for (const k of ['name', 'color', 'hoist', 'mentionable', 'permissions'] as const)
      if (b[k] !== undefined && b[k] !== null) (role as Record<typeof k, unknown>)[k] = b[k];
    return roleJson(role);
  });
  app.delete('/guilds/:guild_id/roles/:role_id', async (request, reply) => {
    const g = guildOf(request, reply);
    if (!g) return reply;
    const { role_id } = request.params as { role_id: string };
    const role = g.roles.find((r) => r.id === role_id);
    if (!role) return discordError(reply, 404, 10011, 'Unknown Role');
    if (role.managed || role.id === g.id) return discordError(reply, 403, 50013, 'Missing Permissions');
    g.roles.splice(g.roles.indexOf(role), 1);
    for (const m of g.members) m.roles = m.roles.filter((r) => r !== role_id);
    return reply.status(204).send();
  });

  app.get('/guilds/:guild_id/members', async (request, reply) => {
    const g = guildOf(request, reply);
    if (!g) return reply;
    const q = request.query as { limit?: string; after?: string };
    const after = BigInt(q.after ?? '0');
    return g.members
      .filter((m) => BigInt(m.user.id) > after)
      .sort((a, b) => (BigInt(a.user.id) < BigInt(b.user.id) ? -1 : 1))
      .slice(0, Number(q.limit ?? 1))
      .map(memberJson);
  });
  app.get('/guilds/:guild_id/members/search', async (request, reply) => {
    const g = guildOf(request, reply);
    if (!g) return reply;
    const q = request.query as { query: string; limit?: string };
    const prefix = q.query.toLowerCase();
    return g.members
      .filter((m) => m.user.username.startsWith(prefix) || (m.nick ?? '').toLowerCase().startsWith(prefix))
      .slice(0, Number(q.limit ?? 1))
      .map(memberJson);
  });
  app.get('/guilds/:guild_id/members/:user_id', async (request, reply) => {
    const g = guildOf(request, reply);
    if (!g) return reply;
    const m = memberOf(g, (request.params as { user_id: string }).user_id);
    return m ? memberJson(m) : discordError(reply, 404, 10007, 'Unknown Member');
  });
  for (const method of ['PUT', 'DELETE'] as const) {
    app.route({
      method,
      url: '/guilds/:guild_id/members/:user_id/roles/:role_id',
      handler: async (request, reply) => {
        const g = guildOf(request, reply);
        if (!g) return reply;
        const { user_id, role_id } = request.params as { user_id: string; role_id: string };
        const m = memberOf(g, user_id);
        if (!m) return discordError(reply, 404, 10007, 'Unknown Member');
        const role = g.roles.find((r) => r.id === role_id);
        if (!role) return discordError(reply, 404, 10011, 'Unknown Role');
        if (role.managed) return discordError(reply, 403, 50013, 'Missing Permissions');
        if (method === 'PUT' && !m.roles.includes(role_id)) m.roles.push(role_id);
        if (method === 'DELETE') m.roles = m.roles.filter((r) => r !== role_id);
        return reply.status(204).send();
      },
    });
  }

  const events = () => worldOf(state).events;
  app.get('/guilds/:guild_id/scheduled-events', async (request, reply) => {
    const g = guildOf(request, reply);
    if (!g) return reply;
    const withCount = String((request.query as { with_user_count?: string }).with_user_count) === 'true';
    return [...events().values()]
      .filter((e) => e.guild_id === g.id)
      .map((e) => ({ ...eventJson(e), ...(withCount ? { user_count: 0 } : {}) }));
  });
  app.post('/guilds/:guild_id/scheduled-events', async (request, reply) => {
    const g = guildOf(request, reply);
    if (!g) return reply;
    const b = request.body as {
      name: string;
      description?: string;
      scheduled_start_time: string;
      scheduled_end_time?: string;
      entity_type: number;
      channel_id?: string;
      entity_metadata?: { location?: string };
      image?: string;
    };
    // https://discord.com/developers/docs/resources/guild-scheduled-event#create-guild-scheduled-event: external events need a location and an end.
    if (b.entity_type === 3 && (!b.entity_metadata?.location || !b.scheduled_end_time))
      return discordError(reply, 400, 50035, 'Invalid Form Body', {
        entity_metadata: {
          _errors: [
            {
              code: 'BASE_TYPE_REQUIRED',
              message: 'External events need entity_metadata.location and scheduled_end_time',
            },
          ],
        },
      });
    if (b.entity_type !== 3) {
      const channel = b.channel_id ? worldOf(state).channels.get(b.channel_id) : undefined;
      if (!channel || channel.guild_id !== g.id || channel.type !== (b.entity_type === 1 ? 13 : 2))
        return discordError(reply, 400, 50035, 'Invalid Form Body', {
          channel_id: {
            _errors: [{ code: 'CHANNEL_TYPE_INVALID', message: 'Not a voice or stage channel of this guild' }],
          },
        });
    }
    if (Date.parse(b.scheduled_start_time) <= now().getTime())
      return discordError(reply, 400, 50035, 'Invalid Form Body', {
        scheduled_start_time: {
          _errors: [{ code: 'GUILD_SCHEDULED_EVENT_SCHEDULE_PAST', message: 'Cannot schedule event in the past.' }],
        },
      });
    const e: SimEvent = {
      id: snowflake(worldOf(state), now()),
      guild_id: g.id,
      name: b.name,
      description: b.description ?? null,
      channel_id: b.entity_type === 3 ? null : (b.channel_id ?? null),
      start: b.scheduled_start_time,
      end: b.scheduled_end_time ?? null,
      status: 1,
      entity_type: b.entity_type,
      location: b.entity_metadata?.location ?? null,
      image: b.image ? 'a1b2c3' : null,
    };
    events().set(e.id, e);
    return eventJson(e);
  });
  const eventOf = (request: FastifyRequest, reply: FastifyReply) => {
    const { guild_id, guild_scheduled_event_id } = request.params as {
      guild_id: string;
      guild_scheduled_event_id: string;
    };
    const e = events().get(guild_scheduled_event_id);
    if (!e || e.guild_id !== guild_id) discordError(reply, 404, 10070, 'Unknown Guild Scheduled Event');
    return e && e.guild_id === guild_id ? e : null;
  };
  app.get('/guilds/:guild_id/scheduled-events/:guild_scheduled_event_id', async (request, reply) => {
    const e = eventOf(request, reply);
    return e ? eventJson(e) : reply;
  });
  app.patch('/guilds/:guild_id/scheduled-events/:guild_scheduled_event_id', async (request, reply) => {
    const e = eventOf(request, reply);
    if (!e) return reply;
    const b = (request.body ?? {}) as {
      name?: string;
      description?: string;
      scheduled_start_time?: string;
      scheduled_end_time?: string;
      status?: number;
      entity_metadata?: { location?: string };
    };
    // Status moves SCHEDULED -> ACTIVE -> COMPLETED, or SCHEDULED -> CANCELED; nothing leaves COMPLETED or CANCELED.
    if (
      b.status !== undefined &&
      (e.status >= 3 || (e.status === 2 && b.status !== 3) || (e.status === 1 && b.status === 3))
    ) {
      return discordError(reply, 400, 180000, 'Cannot update event status');
    }
    Object.assign(e, {
      ...(b.name ? { name: b.name } : {}),
      ...(b.description !== undefined ? { description: b.description } : {}),
      ...(b.scheduled_start_time ? { start: b.scheduled_start_time } : {}),
      ...(b.scheduled_end_time ? { end: b.scheduled_end_time } : {}),
      ...(b.status !== undefined ? { status: b.status } : {}),
      ...(b.entity_metadata?.location ? { location: b.entity_metadata.location } : {}),
    });
    return eventJson(e);
  });
  app.delete('/guilds/:guild_id/scheduled-events/:guild_scheduled_event_id', async (request, reply) => {
    const e = eventOf(request, reply);
    if (!e) return reply;
    events().delete(e.id);
    return reply.status(204).send();
  });
}
