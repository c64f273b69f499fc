import { randomBytes } from 'node:crypto';
import type { SimulatorState } from '../types.js';
import { SlackRateLimits } from './rate-limits.js';

/*
 * The simulated Slack: two workspaces the consenting user installs the app in, each with public and
 * private channels (the bot already in some, not in others), people, the bot user, tokens, messages and
 * uploaded files. Ids follow Slack's shapes as its OpenAPI document checks them (T…, C…/G…, U…, B…, F…).
 */

export interface SimChannel {
  id: string;
  name: string;
  isPrivate: boolean;
  /** The bot is in the channel (it can post; a public one it can join). */
  botMember: boolean;
  created: number;
}

export interface SimUser {
  id: string;
  name: string;
  realName: string;
  isBot?: boolean;
  deleted?: boolean;
}

export interface SimWorkspace {
  id: string;
  name: string;
  domain: string;
  botUserId: string;
  botId: string;
  channels: SimChannel[];
  users: SimUser[];
}

export interface SimMessage {
  ts: string;
  channel: string;
  team: string;
  text: string;
  /** The author: the bot user for Herald's posts, a person for `_inbound`. */
  user: string;
  botId: string | null;
  threadTs?: string;
  blocks?: unknown[];
  files?: { id: string; name: string; title: string; mimetype: string; size: number }[];
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
  username?: string;
  iconUrl?: string;
  deleted?: boolean;
  /** The last chat.update: who and when (Slack's `edited {user, ts}`). */
  edited?: { user: string; ts: string };
}

interface SimFile {
  id: string;
  team: string;
  filename: string;
  length: number;
  received: number | null;
  mimetype: string;
  shared: boolean;
  deleted?: boolean;
}

interface SimGrant {
  team: string;
  expiresAt: number | null;
  revoked: boolean;
  scope: string;
}

export interface SlackStore {
  workspaces: SimWorkspace[];
  tokens: Map<string, SimGrant>;
  refreshTokens: Map<string, SimGrant>;
  codes: Map<string, { team: string; redirectUri: string; scope: string; used: boolean }>;
  messages: SimMessage[];
  files: Map<string, SimFile>;
  /** Last ts second and counter, so every ts is unique and increasing. */
  clock: { second: number; seq: number };
  /**
   * `_config`: issue rotating tokens (default false); `editWindowMinutes`, the workspace's "allow editing
   * messages up to N minutes" setting (default null: any time), past which chat.update is `edit_window_closed`.
   */
  settings: { tokenRotation: boolean; editWindowMinutes: number | null };
  /** Calls counted against Slack's rate limits (forgotten by `_reset`, like everything else). */
  limits: SlackRateLimits;
  /** `_oauth/faults`: the next token endpoint calls fail. */
  oauthFault: { kind: 'unavailable' | 'invalid_grant' | null; count: number };
}

const channel = (id: string, name: string, isPrivate: boolean, botMember: boolean): SimChannel => ({
  id,
  name,
  isPrivate,
  botMember,
  created: 1_700_000_000,
});

function people(suffix: string): SimUser[] {
  return [
    { id: `U0ALICE00${suffix}`, name: 'alice', realName: 'Alice Archer' },
    { id: `U0BOB0000${suffix}`, name: 'bob', realName: 'Bob Baker' },
    { id: `U0CAROL00${suffix}`, name: 'carol', realName: 'Carol Chen', deleted: true },
    { id: `U0HERALDB${suffix}`, name: 'herald', realName: 'Herald', isBot: true },
    { id: 'USLACKBOT', name: 'slackbot', realName: 'Slackbot' },
  ];
}

function workspaces(): SimWorkspace[] {
  return [
    {
      id: 'T0SANDBOX1',
      name: 'Herald Sandbox',
      domain: 'herald-sandbox',
      botUserId: 'U0HERALDB1',
      botId: 'B0HERALD001',
      channels: [
        channel('C0GENERAL01', 'general', false, true),
        channel('C0RANDOM001', 'random', false, false),
        channel('G0PRIVATE01', 'launch-team', true, true),
        channel('G0SECRET001', 'secret-plans', true, false),
      ],
      users: people('1'),
    },
    {
      id: 'T0SANDBOX2',
      name: 'Herald Partners',
      domain: 'herald-partners',
      botUserId: 'U0HERALDB2',
      botId: 'B0HERALD002',
      channels: [
        channel('C0ANNOUNCE2', 'announcements', false, true),
        channel('G0PARTNER02', 'partners-private', true, true),
      ],
      users: people('2'),
    },
  ];
}

export function slackStore(state: SimulatorState): SlackStore {
  let s = state.data.get('slack') as SlackStore | undefined;
  if (!s) {
    s = {
      workspaces: workspaces(),
      tokens: new Map(),
      refreshTokens: new Map(),
      codes: new Map(),
      messages: [],
      files: new Map(),
      clock: { second: 0, seq: 0 },
      settings: { tokenRotation: false, editWindowMinutes: null },
      oauthFault: { kind: null, count: 0 },
      limits: new SlackRateLimits(),
    };
    state.data.set('slack', s);
  }
  return s;
}

export const randomToken = (prefix: string) => `${prefix}${randomBytes(18).toString('hex')}`;

/** A new message ts: `<epoch seconds>.<6 digits>`, unique and increasing. */
export function nextTs(store: SlackStore, now: Date): string {
  const second = Math.floor(now.getTime() / 1000);
  if (second > store.clock.second) store.clock = { second, seq: 0 };
  store.clock.seq += 1;
  return `${store.clock.second}.${String(store.clock.seq).padStart(6, '0')}`;
}

export const fileId = () => `F0${randomBytes(5).toString('hex').toUpperCase()}`;

export function workspaceOf(store: SlackStore, team: string): SimWorkspace {
  const ws = store.workspaces.find((w) => w.id === team);
  if (!ws) throw new Error(`unknown workspace ${team}`);
  return ws;
}

/** A conversation object as conversations.* answer it (objs_conversation). */
export function conversationJson(ws: SimWorkspace, c: SimChannel) {
  const text = { value: '', creator: '', last_set: 0 };
  return {
    id: c.id,
    name: c.name,
    name_normalized: c.name,
    created: c.created,
    creator: ws.users[0].id,
    is_archived: false,
    is_channel: !c.isPrivate,
    is_group: c.isPrivate,
    is_general: c.name === 'general',
    is_im: false,
    is_mpim: false,
    is_private: c.isPrivate,
    is_shared: false,
    is_org_shared: false,
    is_ext_shared: false,
    is_pending_ext_shared: false,
    is_member: c.botMember,
    num_members: c.botMember ? 3 : 2,
    topic: text,
    purpose: text,
  };
}

/** A message as the conversations.* reads and chat.postMessage answer it (objs_message). */
export function messageJson(ws: SimWorkspace, m: SimMessage, opts: { metadata: boolean; replies?: SimMessage[] }) {
  const replies = opts.replies ?? [];
  return {
    type: 'message',
    ts: m.ts,
    text: m.text,
    user: m.user,
    team: ws.id,
    ...(m.botId ? { bot_id: m.botId } : {}),
    ...(m.threadTs ? { thread_ts: m.threadTs } : {}),
    ...(m.threadTs && m.threadTs !== m.ts ? { parent_user_id: ws.botUserId } : {}),
    ...(replies.length
      ? {
          thread_ts: m.ts,
          reply_count: replies.length,
          subscribed: false,
          latest_reply: replies[replies.length - 1].ts,
        }
      : {}),
    ...(m.blocks ? { blocks: m.blocks } : {}),
    ...(m.files
      ? {
          files: m.files.map((f) => ({ id: f.id, name: f.name, title: f.title, mimetype: f.mimetype, size: f.size })),
          upload: false,
        }
      : {}),
    ...(m.username ? { username: m.username } : {}),
    ...(m.iconUrl ? { icons: { image_64: m.iconUrl } } : {}),
    ...(opts.metadata && m.metadata ? { metadata: m.metadata } : {}),
  };
}

/** A person as users.list answers it (objs_user with its objs_user_profile). */
export function userJson(ws: SimWorkspace, u: SimUser, updated: number) {
  const image = `https://avatars.slack-edge.test/${u.id}`;
  return {
    id: u.id,
    team_id: ws.id,
    name: u.name,
    real_name: u.realName,
    deleted: u.deleted === true,
    is_bot: u.isBot === true,
    is_app_user: false,
    updated,
    profile: {
      real_name: u.realName,
      real_name_normalized: u.realName,
      display_name: u.name,
      display_name_normalized: u.name,
      avatar_hash: 'g0000000000a',
      title: '',
      phone: '',
      skype: '',
      status_text: '',
      status_emoji: '',
      fields: null,
      team: ws.id,
      image_72: `${image}-72.png`,
      image_192: `${image}-192.png`,
    },
  };
}
