import { PlatformError, type Destination, type DestinationsCapability, type PlatformIO } from '../types.js';
import { slackCall, type SlackOptions } from './api.js';

/*
 * A Slack account is one channel of a workspace the bot was installed in. The listing is
 * conversations.list (public and private channels the token can see, archived ones left out,
 * https://api.slack.com/methods/conversations.list), paged with `cursor` up to 2,000 channels as the
 * hosted API does. Choosing a public channel the bot is not in joins it (conversations.join,
 * https://api.slack.com/methods/conversations.join); a private one must have the bot invited first
 * (`/invite @app`): Slack gives a bot no way to join it.
 */

const PAGE = 200;
const MAX_CHANNELS = 2000;

interface SlackChannel {
  id: string;
  name: string;
  is_private?: boolean;
  is_member?: boolean;
  is_archived?: boolean;
  context_team_id?: string;
}

function destination(c: SlackChannel): Destination {
  return { id: c.id, name: c.name, details: { isPrivate: c.is_private === true, isMember: c.is_member === true } };
}

async function listChannels(opts: SlackOptions, io: PlatformIO, token: string): Promise<SlackChannel[]> {
  const out: SlackChannel[] = [];
  let cursor: string | undefined;
  do {
    const page = await slackCall(opts, io, 'conversations.list', {
      token,
      params: { types: 'public_channel,private_channel', exclude_archived: true, limit: PAGE, cursor },
    });
    out.push(...((page.channels ?? []) as SlackChannel[]).filter((c) => !c.is_archived));
    cursor = page.response_metadata?.next_cursor || undefined;
  } while (cursor && out.length < MAX_CHANNELS);
  return out.slice(0, MAX_CHANNELS);
}

export function slackChannels(opts: SlackOptions): DestinationsCapability {
  return {
    kind: 'channel',
    async list({ accessToken }, io, filter) {
      const channels = await listChannels(opts, io, accessToken);
      const wanted = filter?.ids ? new Set(filter.ids) : null;
      return channels.filter((c) => !wanted || wanted.has(c.id)).map(destination);
    },
    async select(chosen, user, io) {
      if (!chosen) throw new PlatformError('rejected', 'a Slack account is a channel: choose one');
      const isPrivate = chosen.details.isPrivate === true;
      if (chosen.details.isMember !== true) {
        if (isPrivate) {
          throw new PlatformError(
            'rejected',
            `the app is not in the private channel #${chosen.name}: invite it there first (/invite @app), then connect again`,
            { platformCode: 'not_in_channel' },
          );
        }
        await slackCall(opts, io, 'conversations.join', {
          token: user.tokens.accessToken,
          params: { channel: chosen.id },
        });
      }
      const team = user.profile.metadata ?? {};
      return {
        metadata: {
          channelId: chosen.id,
          channelName: chosen.name,
          channelType: isPrivate ? 'private' : 'public',
          teamId: team.teamId ?? user.profile.platformUserId,
          teamName: team.teamName ?? user.profile.displayName ?? user.profile.username,
          teamUrl: team.teamUrl ?? null,
          teamIcon: team.teamIcon ?? null,
          botUserId: team.botUserId ?? null,
        },
        // One account per channel: the channel id is the account's platform id.
        profile: {
          platformUserId: chosen.id,
          username: chosen.name,
          displayName: chosen.name,
          profileUrl:
            typeof team.teamUrl === 'string' ? `${team.teamUrl.replace(/\/+$/, '')}/archives/${chosen.id}` : null,
          avatarUrl: (team.teamIcon as string | null | undefined) ?? null,
        },
      };
    },
  };
}
