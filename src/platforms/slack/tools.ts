import { Type } from '@sinclair/typebox';
import { invalidFields } from '../../errors.js';
import { platformTool } from '../tools.js';
import type { AccountCredentials, PlatformIO } from '../types.js';
import { botToken, slackCall, type SlackOptions } from './api.js';

/*
 * The routes only Slack has, on the hosted API's wire (@zernio/node 0.2.881 listSlackMembers,
 * getSlackSettings, updateSlackSettings):
 * - GET /v1/accounts/{accountId}/slack-members: the workspace's people a message can go to
 *   (users.list, https://api.slack.com/methods/users.list), without bots, deactivated members and
 *   Slackbot;
 * - GET and PATCH /v1/accounts/{accountId}/slack-settings: the connected channel and the default
 *   author name and icon of its posts (chat.postMessage `username` and `icon_url`, which need the
 *   chat:write.customize scope, https://api.slack.com/methods/chat.postMessage#authorship).
 */

interface SlackUser {
  id: string;
  name: string;
  deleted?: boolean;
  is_bot?: boolean;
  real_name?: string;
  profile?: { display_name?: string; real_name?: string; image_72?: string; image_192?: string };
}

const SLACKBOT = 'USLACKBOT';

export function slackMembers(opts: SlackOptions) {
  return async function members(account: AccountCredentials, q: { limit: number; query?: string }, io: PlatformIO) {
    const out: Array<{ id: string; name: string; username: string | null; picture: string | null }> = [];
    const needle = q.query?.trim().toLowerCase() ?? '';
    let cursor: string | undefined;
    // users.list pages with a cursor (Tier 2): at most 10 pages of 200 are read for one answer.
    for (let page = 0; page < 10 && out.length < q.limit; page++) {
      const answer = await slackCall(opts, io, 'users.list', {
        token: botToken(account),
        params: { limit: 200, cursor },
      });
      for (const u of (answer.members ?? []) as SlackUser[]) {
        if (u.deleted || u.is_bot || u.id === SLACKBOT) continue;
        const name = u.profile?.display_name || u.profile?.real_name || u.real_name || u.name;
        if (needle && !name.toLowerCase().includes(needle) && !u.name.toLowerCase().includes(needle)) continue;
        out.push({
          id: u.id,
          name,
          username: u.name ?? null,
          picture: u.profile?.image_192 ?? u.profile?.image_72 ?? null,
        });
      }
      cursor = answer.response_metadata?.next_cursor || undefined;
      if (!cursor) break;
    }
    return out.slice(0, q.limit);
  };
}

const Nullable = (t: ReturnType<typeof Type.String>) => Type.Union([t, Type.Null()]);

const SettingsAccount = Type.Object({
  _id: Type.String(),
  platform: Type.String(),
  displayName: Nullable(Type.String()),
  channelId: Nullable(Type.String()),
  channelName: Nullable(Type.String()),
  channelType: Nullable(Type.String()),
  teamId: Nullable(Type.String()),
  teamName: Nullable(Type.String()),
  defaultUsername: Nullable(Type.String()),
  defaultIconUrl: Nullable(Type.String()),
});

const text = (v: unknown) => (typeof v === 'string' && v ? v : null);

function presentSettings(account: AccountCredentials, metadata: Record<string, unknown>) {
  return {
    _id: account.accountId,
    platform: 'slack',
    displayName: text(metadata.channelName) ?? account.username,
    channelId: text(metadata.channelId) ?? account.platformUserId,
    channelName: text(metadata.channelName),
    channelType: text(metadata.channelType),
    teamId: text(metadata.teamId),
    teamName: text(metadata.teamName),
    defaultUsername: text(metadata.defaultUsername),
    defaultIconUrl: text(metadata.defaultIconUrl),
  };
}

function checkSettings(body: { defaultUsername?: string; defaultIconUrl?: string }) {
  const problems: Record<string, string[]> = {};
  if (body.defaultUsername !== undefined && [...body.defaultUsername].length > 80)
    problems.defaultUsername = ['must be at most 80 characters'];
  if (body.defaultIconUrl) {
    let ok = false;
    try {
      ok = ['http:', 'https:'].includes(new URL(body.defaultIconUrl).protocol);
    } catch {
      ok = false;
    }
    if (!ok) problems.defaultIconUrl = ['must be an http(s) URL, or empty to clear it'];
  }
  if (Object.keys(problems).length)
    throw invalidFields(`Slack settings: ${Object.keys(problems).join(', ')} invalid`, problems);
}

export const SLACK_TOOLS = [
  platformTool<import('./index.js').SlackAdapter>()({
    method: 'GET',
    path: 'slack-members',
    summary: 'List Slack workspace members',
    description:
      'Members of the connected workspace a direct message can go to: bots, deactivated members and Slackbot are left out.',
    querystring: Type.Object({
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 200 })),
      query: Type.Optional(Type.String({ maxLength: 200 })),
    }),
    response: Type.Object({
      members: Type.Array(
        Type.Object({
          id: Type.String(),
          name: Type.String(),
          username: Nullable(Type.String()),
          picture: Nullable(Type.String()),
        }),
      ),
    }),
    async handler({ adapter, account, query, io }) {
      return {
        body: { members: await adapter.members(account!, { limit: query.limit ?? 200, query: query.query }, io) },
      };
    },
  }),
  platformTool()({
    method: 'GET',
    path: 'slack-settings',
    summary: 'Get Slack account settings',
    description:
      'The connected channel and the default message identity (name and icon shown as the author of every post).',
    response: Type.Object({ account: SettingsAccount }),
    async handler({ account }) {
      return { body: { account: presentSettings(account!, account!.metadata) } };
    },
  }),
  platformTool()({
    method: 'PATCH',
    path: 'slack-settings',
    summary: 'Update Slack account settings',
    description:
      'Sets or clears (empty string) the default author name and icon; platformSpecificData.username and iconUrl still override them per post.',
    body: Type.Object({
      defaultUsername: Type.Optional(Type.String({ maxLength: 200 })),
      defaultIconUrl: Type.Optional(Type.String({ maxLength: 2000 })),
    }),
    response: Type.Object({ message: Type.String(), account: SettingsAccount }),
    async handler({ account, body }) {
      checkSettings(body);
      const changed: Record<string, unknown> = {};
      if (body.defaultUsername !== undefined) changed.defaultUsername = body.defaultUsername.trim() || null;
      if (body.defaultIconUrl !== undefined) changed.defaultIconUrl = body.defaultIconUrl.trim() || null;
      return {
        body: {
          message: 'Slack settings updated',
          account: presentSettings(account!, { ...account!.metadata, ...changed }),
        },
        accountMetadata: changed,
      };
    },
  }),
];
