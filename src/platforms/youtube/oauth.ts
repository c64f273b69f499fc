import { googleOAuth } from '../google-oauth.js';
import { PlatformError, type OAuthProvider, type PlatformProfile } from '../types.js';
import { ytRequest, type YouTubeOptions } from './api.js';

/**
 * Uploads, the channel's details and uploads playlist, and comments (force-ssl is the scope that lets
 * commentThreads.insert write). https://developers.google.com/youtube/v3/guides/auth/server-side-web-apps
 */
export const YOUTUBE_DEFAULT_SCOPES = [
  'https://www.googleapis.com/auth/youtube.upload',
  'https://www.googleapis.com/auth/youtube.readonly',
  'https://www.googleapis.com/auth/youtube.force-ssl',
];

/** Daily views and watch time through the YouTube Analytics API (reports.query); not asked for by default. */
export const YOUTUBE_ANALYTICS_SCOPE = 'https://www.googleapis.com/auth/yt-analytics.readonly';

export function youTubeOAuth(opts: YouTubeOptions): OAuthProvider {
  /** The Google account's channel (`channels?part=snippet,contentDetails&mine=true`): YouTube's one destination. */
  return googleOAuth(
    { ...opts, name: 'YouTube', envPrefix: 'YOUTUBE' },
    async (tokens, io): Promise<PlatformProfile> => {
      const res = await ytRequest(io, {
        method: 'GET',
        url: `${opts.apiUrl}/youtube/v3/channels?part=snippet,contentDetails&mine=true`,
        token: tokens.accessToken,
      });
      const channel = res.body?.items?.[0];
      if (!channel?.id) {
        throw new PlatformError(
          'rejected',
          'this Google account has no YouTube channel: create one on youtube.com, then connect again',
          { platformCode: 'youtubeSignupRequired', endpoint: '/youtube/v3/channels' },
        );
      }
      const title: string = channel.snippet?.title ?? channel.id;
      const handle: string | null = channel.snippet?.customUrl ?? null;
      return {
        platformUserId: channel.id,
        username: handle ? handle.replace(/^@/, '') : title,
        displayName: title,
        profileUrl: handle
          ? `https://www.youtube.com/${handle.startsWith('@') ? handle : `@${handle}`}`
          : `https://www.youtube.com/channel/${channel.id}`,
        avatarUrl: channel.snippet?.thumbnails?.default?.url ?? null,
        metadata: {
          channelId: channel.id,
          channelTitle: title,
          uploadsPlaylistId: channel.contentDetails?.relatedPlaylists?.uploads ?? null,
        },
      };
    },
  );
}
