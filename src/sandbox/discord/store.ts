import type { SimulatorState } from '../types.js';

/*
 * The simulated Discord: the bot, two guilds the consenting user owns (each with text, announcement,
 * forum and voice channels, members and roles), messages, threads, pins, DM channels and scheduled
 * events. Objects are built with every field Discord's OpenAPI marks required, so the answers pass its
 * response schemas.
 */

export const BOT_ID = '1100000000000000001';
const OWNER_ID = '1100000000000000002';
const EPOCH = 1_420_070_400_000n;

export interface SimChannel {
  id: string;
  type: number;
  name: string;
  guild_id: string;
  position: number;
  parent_id?: string | null;
  /** Threads: the message they started from, if any. */
  thread?: { archive: number; owner: string };
}
export interface SimMessage {
  id: string;
  channel_id: string;
  content: string;
  timestamp: string;
  author: string;
  attachments: Array<{
    id: string;
    filename: string;
    size: number;
    url: string;
    proxy_url: string;
    content_type?: string;
  }>;
  embeds: unknown[];
  tts: boolean;
  nonce?: string | number | null;
  flags: number;
  pinnedAt?: string | null;
  deleted?: boolean;
  thread?: string;
  /** When it was last edited (ISO), Discord's `edited_timestamp`. */
  editedAt?: string;
  /** Sent through a webhook: its id, and the name and avatar the message shows. */
  webhook?: { id: string; username: string; avatar_url: string | null };
}
export interface SimWebhook {
  id: string;
  token: string;
  channel_id: string;
  guild_id: string;
  name: string;
}
export interface SimRole {
  id: string;
  name: string;
  color: number;
  position: number;
  permissions: string;
  managed: boolean;
  mentionable: boolean;
  hoist: boolean;
}
export interface SimMember {
  user: { id: string; username: string; global_name: string | null };
  nick: string | null;
  roles: string[];
  joined_at: string;
}
export interface SimEvent {
  id: string;
  guild_id: string;
  name: string;
  description: string | null;
  channel_id: string | null;
  start: string;
  end: string | null;
  status: number;
  entity_type: number;
  location: string | null;
  image: string | null;
}
export interface SimGuild {
  id: string;
  name: string;
  icon: string | null;
  roles: SimRole[];
  members: SimMember[];
}

export interface DiscordWorld {
  guilds: Map<string, SimGuild>;
  channels: Map<string, SimChannel>;
  messages: Map<string, SimMessage>;
  events: Map<string, SimEvent>;
  /** DM channel per recipient. */
  dms: Map<string, string>;
  webhooks: Map<string, SimWebhook>;
  /** nonce -> message id, for enforce_nonce (a few minutes). */
  nonces: Map<string, { id: string; at: number }>;
  /** OAuth codes: code -> {guildId, redirectUri, clientId}. */
  codes: Map<string, { guildId: string; redirectUri: string; clientId: string; used: boolean }>;
  seq: number;
}

export function snowflake(world: DiscordWorld, now: Date): string {
  world.seq = (world.seq + 1) % 4096;
  return String(((BigInt(now.getTime()) - EPOCH) << 22n) | BigInt(world.seq));
}

const member = (id: string, username: string, roles: string[] = []): SimMember => ({
  user: { id, username, global_name: username[0].toUpperCase() + username.slice(1) },
  nick: null,
  roles,
  joined_at: '2025-01-01T00:00:00.000000+00:00',
});
const role = (id: string, name: string, position: number, over: Partial<SimRole> = {}): SimRole => ({
  id,
  name,
  color: 0,
  position,
  permissions: '1071698660929',
  managed: false,
  mentionable: false,
  hoist: false,
  ...over,
});

function seed(): DiscordWorld {
  const world: DiscordWorld = {
    guilds: new Map(),
    channels: new Map(),
    messages: new Map(),
    events: new Map(),
    dms: new Map(),
    webhooks: new Map(),
    nonces: new Map(),
    codes: new Map(),
    seq: 0,
  };
  const guilds: Array<[string, string, Array<[string, number, string]>]> = [
    [
      '1200000000000000001',
      'Sandbox Guild',
      [
        ['1300000000000000001', 0, 'general'],
        ['1300000000000000002', 5, 'announcements'],
        ['1300000000000000003', 15, 'forum'],
        ['1300000000000000004', 2, 'voice'],
        ['1300000000000000005', 0, 'random'],
      ],
    ],
    [
      '1200000000000000002',
      'Second Guild',
      [
        ['1300000000000000011', 0, 'general'],
        ['1300000000000000012', 5, 'news'],
        ['1300000000000000013', 13, 'stage'],
      ],
    ],
  ];
  for (const [id, name, channels] of guilds) {
    world.guilds.set(id, {
      id,
      name,
      icon: null,
      roles: [
        role(id, '@everyone', 0),
        role(`${id.slice(0, -3)}901`, 'Herald', 2, { managed: true }),
        role(`${id.slice(0, -3)}902`, 'Moderator', 1, { color: 3447003, hoist: true }),
      ],
      members: [
        member(OWNER_ID, 'owner'),
        member(BOT_ID, 'herald'),
        member('1100000000000000003', 'alice'),
        member('1100000000000000004', 'albert'),
        member('1100000000000000005', 'bob'),
      ],
    });
    channels.forEach(([cid, type, cname], i) =>
      world.channels.set(cid, { id: cid, type, name: cname, guild_id: id, position: i }),
    );
  }
  return world;
}

export function worldOf(state: SimulatorState): DiscordWorld {
  let w = state.data.get('world') as DiscordWorld | undefined;
  if (!w) {
    w = seed();
    state.data.set('world', w);
  }
  return w;
}

export const userJson = (u: { id: string; username: string; global_name?: string | null }) => ({
  id: u.id,
  username: u.username,
  avatar: null,
  discriminator: '0',
  public_flags: 0,
  flags: 0,
  global_name: u.global_name ?? null,
  primary_guild: null,
  ...(u.id === BOT_ID ? { bot: true } : {}),
});

export const BOT = { id: BOT_ID, username: 'herald', global_name: 'Herald' };
const APPLICATION_ID = '1000000000000000001';

export const webhookJson = (w: SimWebhook, withToken: boolean) => ({
  application_id: APPLICATION_ID,
  avatar: null,
  channel_id: w.channel_id,
  guild_id: w.guild_id,
  id: w.id,
  name: w.name,
  type: 1,
  user: userJson(BOT),
  ...(withToken ? { token: w.token, url: `https://discord.com/api/webhooks/${w.id}/${w.token}` } : {}),
});

export function messageJson(m: SimMessage, world: DiscordWorld) {
  const author = m.webhook
    ? { id: m.webhook.id, username: m.webhook.username, global_name: null }
    : m.author === BOT_ID
      ? BOT
      : (findUser(world, m.author) ?? { id: m.author, username: 'user', global_name: null });
  return {
    type: 0,
    content: m.content,
    mentions: [],
    mention_roles: [],
    attachments: m.attachments,
    // Discord answers each embed with its `type` (`rich` for one a bot sends), which the document requires.
    embeds: m.embeds.map((e) => ({ type: 'rich', ...(e as Record<string, unknown>) })),
    timestamp: m.timestamp,
    edited_timestamp: m.editedAt ?? null,
    flags: m.flags,
    components: [],
    id: m.id,
    channel_id: m.channel_id,
    author: userJson(author),
    pinned: Boolean(m.pinnedAt),
    mention_everyone: false,
    tts: m.tts,
    ...(m.nonce !== undefined && m.nonce !== null ? { nonce: m.nonce } : {}),
    ...(m.webhook ? { webhook_id: m.webhook.id } : {}),
  };
}

function findUser(world: DiscordWorld, id: string) {
  for (const g of world.guilds.values()) {
    const found = g.members.find((m) => m.user.id === id);
    if (found) return found.user;
  }
  return null;
}

export function channelJson(c: SimChannel) {
  if (c.thread) {
    return {
      id: c.id,
      type: c.type,
      flags: 0,
      guild_id: c.guild_id,
      name: c.name,
      parent_id: c.parent_id ?? null,
      owner_id: c.thread.owner,
      thread_metadata: {
        archived: false,
        archive_timestamp: null,
        auto_archive_duration: c.thread.archive,
        locked: false,
      },
      message_count: 0,
      member_count: 1,
      total_message_sent: 0,
    };
  }
  return {
    id: c.id,
    type: c.type,
    flags: 0,
    guild_id: c.guild_id,
    name: c.name,
    position: c.position,
    parent_id: c.parent_id ?? null,
    permission_overwrites: [],
  };
}

export const roleJson = (r: SimRole) => ({
  ...r,
  colors: { primary_color: r.color, secondary_color: null, tertiary_color: null },
  icon: null,
  unicode_emoji: null,
  flags: 0,
});

export const memberJson = (m: SimMember) => ({
  avatar: null,
  banner: null,
  communication_disabled_until: null,
  flags: 0,
  joined_at: m.joined_at,
  nick: m.nick,
  pending: false,
  premium_since: null,
  roles: m.roles,
  user: userJson(m.user),
  mute: false,
  deaf: false,
});

export function guildJson(g: SimGuild) {
  return {
    id: g.id,
    name: g.name,
    icon: g.icon,
    description: null,
    home_header: null,
    splash: null,
    discovery_splash: null,
    features: [],
    banner: null,
    owner_id: OWNER_ID,
    application_id: null,
    region: 'deprecated',
    afk_channel_id: null,
    afk_timeout: 300,
    system_channel_id: null,
    system_channel_flags: 0,
    widget_enabled: false,
    widget_channel_id: null,
    verification_level: 0,
    roles: g.roles.map(roleJson),
    default_message_notifications: 0,
    mfa_level: 0,
    explicit_content_filter: 0,
    max_presences: null,
    max_members: 500000,
    max_stage_video_channel_users: 50,
    max_video_channel_users: 25,
    vanity_url_code: null,
    premium_tier: 0,
    premium_subscription_count: 0,
    preferred_locale: 'en-US',
    rules_channel_id: null,
    safety_alerts_channel_id: null,
    public_updates_channel_id: null,
    premium_progress_bar_enabled: false,
    nsfw: false,
    nsfw_level: 0,
    emojis: [],
    stickers: [],
    incidents_data: null,
  };
}

export function eventJson(e: SimEvent) {
  return {
    id: e.id,
    guild_id: e.guild_id,
    name: e.name,
    description: e.description,
    channel_id: e.channel_id,
    creator_id: BOT_ID,
    image: e.image,
    scheduled_start_time: e.start,
    scheduled_end_time: e.end,
    status: e.status,
    entity_type: e.entity_type,
    entity_id: null,
    recurrence_rule: null,
    privacy_level: 2,
    guild_scheduled_event_exceptions: [],
    entity_metadata: e.entity_type === 3 ? { location: e.location ?? '' } : null,
  };
}
