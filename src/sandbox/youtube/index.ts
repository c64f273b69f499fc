import { metricsFor, subscribersOf } from '../metrics.js';
import type { FastifyInstance } from 'fastify';
import { registerOAuthRoutes, type OAuthSim } from '../oauth.js';
import { registerYouTubeLimits } from './limits.js';
import { hangUp, markDeleted, type Simulator, type SimulatorState } from '../types.js';
import { checkSchema, mediaUpload } from './discovery.js';
import { partsOf } from './rules.js';
import { channelFor, checked, etag, sendFault, videoResource, ytError, ytStore } from './store.js';
import { registerYouTubeAnalytics } from './analytics.js';
import { registerUploads } from './upload.js';
import { addComment, registerComments } from './comments.js';
import { registerPlaylistItems } from './playlist-items.js';
import { registerPlaylists } from './playlists.js';
import { registerCaptions } from './captions.js';

export { externalYtVideo } from './playlist-items.js';
export { addPlaylist } from './playlists.js';
export { addCaptionTrack } from './captions.js';

export interface YouTubeSimulatorOptions {
  /** Clock for processing and publish times. Default: real time. */
  now?: () => Date;
}

/**
 * Google OAuth (offline access, refresh tokens that do not rotate) and the YouTube Data API v3 on loopback:
 * channels (the consenting user's one channel), the resumable and multipart video upload, videos.list with
 * processingDetails, videos.delete, thumbnails.set, comments (commentThreads.insert and list, comments.insert,
 * list, delete and setModerationStatus: comments.ts), the uploads playlist, playlists.list and insert
 * (playlists.ts) and captions.list and download (captions.ts). Request
 * bodies and the simulator's own answers are held to Google's discovery document (discovery.ts).
 * Paths are Google's, relative to the simulator: `/o/oauth2/v2/auth` (accounts.google.com), `/token` and
 * `/revoke` (oauth2.googleapis.com), `/youtube/v3/...` and `/upload/youtube/v3/...` (www.googleapis.com).
 *
 * Test control besides docs/sandbox.md's: `POST /_expire-sessions {status?: 404 | 410}` makes every open upload
 * session answer as expired.
 */
export function youTubeSimulator(opts: YouTubeSimulatorOptions = {}): Simulator {
  const now = () => (opts.now ? opts.now() : new Date()).getTime();
  return {
    platform: 'youtube',
    now: () => now(),
    insights: true,
    faultOps: ['publish', 'upload', 'processing', 'token', 'lookup', 'delete', 'comment', 'destinations'],
    async register(app: FastifyInstance, state: SimulatorState) {
      const oauth: OAuthSim = registerOAuthRoutes(app, state, {
        authorizePath: '/o/oauth2/v2/auth',
        tokenPath: '/token',
        revokePath: '/revoke',
        // https://developers.google.com/identity/protocols/oauth2/web-server: access tokens last an hour;
        // a refresh token comes with the first consent (access_type=offline) and is not rotated.
        accessTokenTtlSec: 3599,
        rotateRefreshTokens: false,
        tokenExtras: { token_type: 'Bearer' },
      });
      const store = () => ytStore(state);
      // Before the uploads scope is registered, so that its routes inherit the hook.
      const videoInsert = mediaUpload('videos', 'insert');
      registerYouTubeLimits(app, state, oauth, {
        videos: [videoInsert.simple, videoInsert.resumable],
        thumbnails: mediaUpload('thumbnails', 'set').simple,
      });

      // Uploads read their bodies as streams: this scope passes every non-JSON body through unread.
      await app.register(async (uploads) => {
        uploads.removeContentTypeParser('*');
        uploads.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
        registerUploads(uploads, state, oauth, now);
      });

      registerYouTubeAnalytics(app, state, oauth, now);

      app.post<{ Body: { status?: number } | null }>('/_expire-sessions', async (request) => {
        const status = request.body?.status === 410 ? 410 : 404;
        for (const s of store().sessions.values()) if (!s.videoId) s.expired = status;
        return { ok: true, status };
      });

      app.get('/youtube/v3/channels', async (request, reply) => {
        const channel = channelFor(request, reply, oauth);
        if (!channel) return reply;
        const q = request.query as Record<string, string>;
        const parts = partsOf(q);
        if (!parts.length)
          return ytError(reply, 400, 'required', 'Required parameter: part', { domain: 'global', location: 'part' });
        if (q.mine !== 'true' && q.id !== channel.id)
          return ytError(
            reply,
            400,
            'missingRequiredParameter',
            'No filter selected. Expected one of: mine, id, forHandle, forUsername',
            { location: 'parameters.' },
          );
        const fault = state.faults.take('destinations');
        if (sendFault(reply, fault, { reason: 'forbidden', message: 'The request is not properly authorized.' }))
          return reply;
        const item: Record<string, unknown> = { kind: 'youtube#channel', etag: etag(channel.id), id: channel.id };
        if (parts.includes('snippet')) {
          item.snippet = {
            title: channel.title,
            description: '',
            customUrl: channel.customUrl,
            publishedAt: '2020-01-01T00:00:00Z',
            thumbnails: { default: { url: `https://yt3.ggpht.com/${channel.id}=s88`, width: 88, height: 88 } },
            localized: { title: channel.title, description: '' },
          };
        }
        if (parts.includes('contentDetails'))
          item.contentDetails = { relatedPlaylists: { likes: '', uploads: channel.uploads } };
        if (parts.includes('statistics')) {
          const videos = [...store().videos.values()].filter((v) => v.channelId === channel.id && !v.deleted);
          item.statistics = {
            viewCount: '0',
            subscriberCount: String(subscribersOf(state, channel.id)),
            hiddenSubscriberCount: false,
            videoCount: String(videos.length),
          };
        }
        return checked('ChannelListResponse', {
          kind: 'youtube#channelListResponse',
          etag: etag(`list-${channel.id}`),
          pageInfo: { totalResults: 1, resultsPerPage: 5 },
          items: [item],
        });
      });

      app.get('/youtube/v3/videos', async (request, reply) => {
        const channel = channelFor(request, reply, oauth);
        if (!channel) return reply;
        const q = request.query as Record<string, string>;
        const parts = partsOf(q);
        if (!parts.length)
          return ytError(reply, 400, 'required', 'Required parameter: part', { domain: 'global', location: 'part' });
        const ids = String(q.id ?? '')
          .split(',')
          .filter(Boolean);
        if (!ids.length)
          return ytError(
            reply,
            400,
            'missingRequiredParameter',
            'No filter selected. Expected one of: id, myRating, chart',
            { location: 'parameters.' },
          );
        // Other channels' private details are not shown; a deleted video is simply absent.
        const items = ids
          .map((id) => store().videos.get(id))
          .filter((v) => v && !v.deleted)
          .map((v) => {
            const owner = v!.channelId === channel.id;
            return videoResource(
              v!,
              owner ? parts : parts.filter((p) => p !== 'processingDetails'),
              now(),
              metricsFor(state, v!.id, v!.createdAt, now()),
            );
          });
        return checked('VideoListResponse', {
          kind: 'youtube#videoListResponse',
          etag: etag(ids.join(',')),
          items,
          pageInfo: { totalResults: items.length, resultsPerPage: items.length },
        });
      });

      app.delete('/youtube/v3/videos', async (request, reply) => {
        const channel = channelFor(request, reply, oauth);
        if (!channel) return reply;
        const id = (request.query as Record<string, string>).id ?? '';
        const video = store().videos.get(id);
        if (!video || video.deleted)
          return ytError(reply, 404, 'videoNotFound', 'The video that you are trying to delete cannot be found.', {
            location: 'id',
          });
        if (video.channelId !== channel.id)
          return ytError(reply, 403, 'forbidden', 'The video that you are trying to delete cannot be deleted.');
        const fault = state.faults.take('delete');
        if (
          sendFault(reply, fault, {
            reason: 'forbidden',
            message: 'The video that you are trying to delete cannot be deleted.',
          })
        )
          return reply;
        video.deleted = true;
        markDeleted(state, video.id);
        if (fault === 'ambiguous') return hangUp(reply);
        return reply.status(204).send();
      });

      /**
       * videos.update: each part sent replaces the video's (a snippet needs its title and categoryId); the
       * title is 1-100 characters without < or >, the tags 500 characters in all; only the owner's video.
       * https://developers.google.com/youtube/v3/docs/videos/update
       */
      app.put('/youtube/v3/videos', async (request, reply) => {
        const channel = channelFor(request, reply, oauth, ['videos', 'update']);
        if (!channel) return reply;
        const parts = partsOf(request.query as Record<string, string>);
        if (!parts.length)
          return ytError(reply, 400, 'required', 'Required parameter: part', { domain: 'global', location: 'part' });
        const problems = checkSchema('Video', request.body ?? null);
        if (problems.length) return ytError(reply, 400, 'invalid', problems[0].message, { domain: 'global' });
        const body = request.body as {
          id?: string;
          snippet?: { title?: string; categoryId?: string; tags?: string[]; description?: string };
          status?: Record<string, unknown>;
        };
        const video = body.id ? store().videos.get(body.id) : undefined;
        if (!video || video.deleted)
          return ytError(reply, 404, 'videoNotFound', 'The video that you are trying to update cannot be found.', {
            location: 'body.id',
          });
        if (video.channelId !== channel.id)
          return ytError(reply, 403, 'forbidden', 'The video that you are trying to update cannot be updated.');
        const snippet = parts.includes('snippet') ? body.snippet : undefined;
        if (parts.includes('snippet')) {
          const title = snippet?.title;
          if (typeof title !== 'string' || !title.trim())
            return ytError(
              reply,
              400,
              'invalidTitle',
              'The request metadata specifies an invalid or empty video title.',
            );
          if ([...title].length > 100 || /[<>]/.test(title))
            return ytError(reply, 400, 'invalidTitle', 'The request metadata specifies an invalid video title.');
          if (!snippet?.categoryId)
            return ytError(
              reply,
              400,
              'invalidCategoryId',
              'The snippet.categoryId property specifies an invalid category ID.',
            );
          const tags: string[] = snippet.tags ?? [];
          if (tags.reduce((n, t) => n + t.length, 0) > 500)
            return ytError(reply, 400, 'invalidTags', 'The request metadata specifies invalid video keywords.');
          if (typeof snippet.description === 'string' && Buffer.byteLength(snippet.description) > 5000)
            return ytError(
              reply,
              400,
              'invalidDescription',
              'The request metadata specifies an invalid video description.',
            );
        }
        const fault = state.faults.take('publish');
        if (
          sendFault(reply, fault, {
            reason: 'forbidden',
            message: 'The video that you are trying to update cannot be updated.',
          })
        )
          return reply;
        if (snippet) {
          video.snippet = {
            ...video.snippet,
            title: snippet.title,
            description: snippet.description ?? '',
            categoryId: snippet.categoryId,
            tags: snippet.tags,
          };
          const seen = state.posts.find((p) => p.id === video.id);
          if (seen) {
            seen.text = video.snippet.description ?? '';
            seen.extra = { ...seen.extra, title: video.snippet.title, tags: snippet.tags ?? null, edited: true };
          }
        }
        if (parts.includes('status') && body.status) {
          const { madeForKids: _derived, ...status } = body.status;
          video.status = { ...video.status, ...status };
          const seen = state.posts.find((p) => p.id === video.id);
          if (seen) seen.extra = { ...seen.extra, privacyStatus: video.status.privacyStatus };
        }
        if (fault === 'ambiguous') return hangUp(reply);
        return checked(
          'Video',
          videoResource(video, parts, now(), metricsFor(state, video.id, video.createdAt, now())),
        );
      });

      app.post('/youtube/v3/commentThreads', async (request, reply) => {
        const channel = channelFor(request, reply, oauth, ['commentThreads', 'insert']);
        if (!channel) return reply;
        const parts = partsOf(request.query as Record<string, string>);
        if (!parts.length)
          return ytError(reply, 400, 'required', 'Required parameter: part', { domain: 'global', location: 'part' });
        const problems = checkSchema('CommentThread', request.body ?? null);
        if (problems.length) return ytError(reply, 400, 'invalid', problems[0].message, { domain: 'global' });
        const body = request.body as {
          snippet?: { videoId?: string; topLevelComment?: { snippet?: { textOriginal?: string } } };
        };
        const text = body.snippet?.topLevelComment?.snippet?.textOriginal;
        // https://developers.google.com/youtube/v3/docs/commentThreads/insert#errors
        if (!text || text.length > 10_000)
          return ytError(reply, 400, 'invalidCommentMetadata', 'The request metadata is invalid.');
        const video = store().videos.get(body.snippet?.videoId ?? '');
        if (!video || video.deleted)
          return ytError(
            reply,
            404,
            'videoNotFound',
            'The video identified by the videoId parameter could not be found.',
            { location: 'body.snippet.videoId' },
          );
        // Comments are off on videos made for kids.
        if (video.status.selfDeclaredMadeForKids)
          return ytError(
            reply,
            403,
            'commentsDisabled',
            'The video identified by the videoId parameter has disabled comments.',
          );
        const fault = state.faults.take('comment');
        if (sendFault(reply, fault, { reason: 'invalidCommentMetadata', message: 'The request metadata is invalid.' }))
          return reply;
        const comment = addComment(state, { videoId: video.id, parentId: null, text, author: channel, at: now() });
        const id = comment.id;
        const inspected = state.posts.find((p) => p.id === video.id);
        if (inspected) (inspected.extra!.comments as unknown[]).push({ id, text, channelId: channel.id });
        if (fault === 'ambiguous') return hangUp(reply);
        const published = new Date(now()).toISOString();
        return checked('CommentThread', {
          kind: 'youtube#commentThread',
          etag: etag(id),
          id,
          snippet: {
            channelId: video.channelId,
            videoId: video.id,
            topLevelComment: {
              kind: 'youtube#comment',
              etag: etag(`c-${id}`),
              id,
              snippet: {
                channelId: video.channelId,
                videoId: video.id,
                textDisplay: text,
                textOriginal: text,
                authorDisplayName: channel.customUrl,
                authorChannelUrl: `http://www.youtube.com/${channel.customUrl}`,
                authorChannelId: { value: channel.id },
                canRate: true,
                viewerRating: 'none',
                likeCount: 0,
                moderationStatus: 'published',
                publishedAt: published,
                updatedAt: published,
              },
            },
            canReply: true,
            totalReplyCount: 0,
            isPublic: true,
          },
        });
      });

      registerComments(app, state, oauth, now);

      registerPlaylistItems(app, state, oauth, now);
      registerPlaylists(app, state, oauth, now);
      registerCaptions(app, state, oauth, now);
    },
  };
}
