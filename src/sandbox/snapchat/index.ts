import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { followersSet } from '../metrics.js';
import { registerOAuthRoutes, type OAuthSim, type OAuthUser } from '../oauth.js';
import { parseMultipart } from '../twitter/multipart.js';
import { hangUp, type Simulator, type SimulatorState } from '../types.js';
import {
  checkCreateMedia,
  checkPart,
  checkPostable,
  checkSavedStory,
  checkSpotlight,
  finalizeFile,
  MEDIA_TTL_MS,
  type Refusal,
} from './rules.js';
import { registerSnapStats } from './stats.js';
import {
  organizationOf,
  profileEntity,
  profilesOf,
  sendFault,
  snapError,
  snapOk,
  snapStore,
  statusOf,
  type SnapMedia,
  type SnapProfile,
} from './store.js';
import { registerSnapchatLimits } from './limits.js';

export interface SnapchatSimulatorOptions {
  /** Clock for processing, media expiry and createdAt. Default: real time. */
  now?: () => Date;
}

type Kind = 'story' | 'saved_story' | 'spotlight';

/**
 * Snap's OAuth (accounts.snapchat.com) and the Public Profile API (businessapi.snapchat.com) on loopback:
 * the authenticated user and their organization, the organization's Public Profiles (two per login), the
 * encrypted media upload (Create Media, multipart ADD parts, FINALIZE, which decrypts the file with the
 * media's AES-256-CBC key and IV and checks it), the media's processing status, and story, saved story
 * and spotlight posting. Rules, each with its documentation page, are in rules.ts. Snap offers no delete
 * for these posts (the hosted API cannot unpublish Snapchat either), so there is none here.
 *
 * Paths are Snap's, relative to the simulator: `/login/oauth2/authorize` and `/login/oauth2/access_token`
 * (accounts.snapchat.com), `/v1/...` (businessapi.snapchat.com). `add_path` and `finalize_path` are answered
 * relative to the API host, as Snap answers them.
 */
export function snapchatSimulator(opts: SnapchatSimulatorOptions = {}): Simulator {
  const now = () => (opts.now ? opts.now() : new Date()).getTime();
  return {
    platform: 'snapchat',
    now: () => now(),
    insights: true,
    faultOps: ['publish', 'upload', 'processing', 'token', 'destinations', 'insights'],
    register(app: FastifyInstance, state: SimulatorState) {
      // https://developers.snap.com/api/marketing-api/Ads-API/authentication: the authorization code grant
      // with client_id and client_secret in the form; access tokens last 3600 s and are refreshed with
      // grant_type=refresh_token. Errors are RFC 6749's; a dead refresh token is invalid_grant.
      const oauth: OAuthSim = registerOAuthRoutes(app, state, {
        authorizePath: '/login/oauth2/authorize',
        tokenPath: '/login/oauth2/access_token',
        accessTokenTtlSec: 3600,
        rotateRefreshTokens: false,
        tokenExtras: { token_type: 'Bearer' },
      });
      registerSnapchatLimits(app, state, oauth);
      const store = () => snapStore(state);
      // A profile's subscribers: what `POST /_metrics {postId: <profile id>, metrics: {followers}}` set, else its own number.
      const withSubscribers = (p: SnapProfile): SnapProfile => ({
        ...p,
        subscriberCount: followersSet(state, p.id) ?? p.subscriberCount,
      });

      /** The token's user, or a 401 in Snap's shape. */
      const userOf = (request: FastifyRequest, reply: FastifyReply): OAuthUser | null => {
        const user = oauth.userFor(request.headers.authorization);
        if (!user) snapError(reply, 401, 'E3003', 'Unauthorized: the access token is invalid or expired');
        return user;
      };
      /** The user and one of their profiles named in the path, or a 401/403/404 answered. */
      const ownProfile = (
        request: FastifyRequest,
        reply: FastifyReply,
      ): { user: OAuthUser; profile: SnapProfile } | null => {
        const user = userOf(request, reply);
        if (!user) return null;
        const id = (request.params as { profileId: string }).profileId;
        const profile = profilesOf(user).find((p) => p.id === id);
        if (profile) return { user, profile };
        // Any other profile, whether it exists or not, is one this token may not act for.
        snapError(reply, 403, 'E3002', `Authorization permission denied for public profile ${id}`);
        return null;
      };
      const jsonBody = (request: FastifyRequest, reply: FastifyReply): Record<string, unknown> | null => {
        const body = request.body;
        if (
          !String(request.headers['content-type'] ?? '').startsWith('application/json') ||
          !body ||
          typeof body !== 'object' ||
          Buffer.isBuffer(body)
        ) {
          snapError(reply, 400, 'E1001', 'the body must be a JSON object (Content-Type: application/json)');
          return null;
        }
        return body as Record<string, unknown>;
      };
      const refuse = (reply: FastifyReply, r: Refusal) => snapError(reply, r.status, r.code, r.message);

      // https://developers.snap.com/api/marketing-api/Ads-API/user: GET /v1/me, the authenticated user.
      app.get('/v1/me', async (request, reply) => {
        const user = userOf(request, reply);
        if (!user) return reply;
        return snapOk({
          me: {
            id: user.id,
            display_name: user.name,
            snapchat_username: user.username,
            organization_id: organizationOf(user),
          },
        });
      });

      // https://developers.snap.com/api/marketing-api/Ads-API/organizations: GET /v1/me/organizations.
      app.get('/v1/me/organizations', async (request, reply) => {
        const user = userOf(request, reply);
        if (!user) return reply;
        const org = { id: organizationOf(user), name: `${user.name} organization`, type: 'ENTERPRISE' };
        return snapOk({ organizations: [{ sub_request_status: 'SUCCESS', organization: org }] });
      });

      // Profiles page, "Get Profiles by Organization ID": the profiles the user may act for.
      app.get<{ Params: { organizationId: string } }>(
        '/v1/organizations/:organizationId/public_profiles',
        async (request, reply) => {
          const user = userOf(request, reply);
          if (!user) return reply;
          if (request.params.organizationId !== organizationOf(user))
            return snapError(reply, 403, 'E3002', 'Authorization permission denied for this organization');
          const fault = state.faults.take('destinations');
          if (sendFault(reply, fault, { code: 'E3002', message: 'Authorization permission denied' })) return reply;
          const answer = snapOk({
            public_profiles: profilesOf(user).map((p) => ({
              sub_request_status: 'SUCCESS',
              public_profile: profileEntity(withSubscribers(p)),
            })),
          });
          if (fault === 'ambiguous') return hangUp(reply);
          return answer;
        },
      );

      // Profiles page, "Get My Profile": the user's own Public Profile.
      app.get('/v1/public_profiles/my_profile', async (request, reply) => {
        const user = userOf(request, reply);
        if (!user) return reply;
        return snapOk({ public_profile: profileEntity(withSubscribers(profilesOf(user)[0])) });
      });

      // Profiles page, "Get Profile by ID" (authorized).
      app.get<{ Params: { profileId: string } }>('/v1/public_profiles/:profileId', async (request, reply) => {
        const own = ownProfile(request, reply);
        if (!own) return reply;
        return snapOk({
          public_profiles: [
            { sub_request_status: 'SUCCESS', public_profile: profileEntity(withSubscribers(own.profile)) },
          ],
        });
      });

      registerSnapStats(app, state, { ownProfile, subscribers: (p) => withSubscribers(p).subscriberCount, now });

      // ASSETS, Create Media.
      app.post<{ Params: { profileId: string } }>('/v1/public_profiles/:profileId/media', async (request, reply) => {
        const own = ownProfile(request, reply);
        if (!own) return reply;
        const body = jsonBody(request, reply);
        if (!body) return reply;
        const checked = checkCreateMedia(body);
        if ('code' in checked) return refuse(reply, checked);
        const fault = state.faults.take('upload');
        if (sendFault(reply, fault, { code: 'E2001', message: 'media creation refused' })) return reply;
        const media: SnapMedia = {
          id: randomUUID(),
          profileId: own.profile.id,
          ...checked,
          parts: new Map(),
          createdAt: now(),
          finalizedAt: null,
          file: null,
          failReason: null,
          postedAs: null,
        };
        store().media.set(media.id, media);
        const base = `/v1/public_profiles/${own.profile.id}/media/${media.id}`;
        return snapOk({
          media_id: media.id,
          add_path: `${base}/multipart-upload-part`,
          finalize_path: `${base}/multipart-upload-finalize`,
        });
      });

      /** The media of the path, the profile's and still live (ASSETS: 24 hours), or an answer sent. */
      const mediaOf = (
        _request: FastifyRequest,
        reply: FastifyReply,
        profile: SnapProfile,
        id: string,
      ): SnapMedia | null => {
        const media = store().media.get(id);
        if (!media || media.profileId !== profile.id) {
          snapError(reply, 404, 'E2002', `media ${id} not found for this public profile`);
          return null;
        }
        if (now() > media.createdAt + MEDIA_TTL_MS) {
          snapError(
            reply,
            400,
            'MEDIA_EXPIRED',
            'the media expired: a media object stays active for 24 hours after creation',
          );
          return null;
        }
        return media;
      };
      /** The multipart form of an upload call, or a 400 answered. */
      const formOf = (request: FastifyRequest, reply: FastifyReply) => {
        const type = String(request.headers['content-type'] ?? '');
        const parts =
          type.startsWith('multipart/form-data') && Buffer.isBuffer(request.body)
            ? parseMultipart(request.body, type)
            : null;
        if (!parts) {
          snapError(reply, 400, 'E1001', 'the body must be multipart/form-data');
          return null;
        }
        const fields = new Map(parts.filter((p) => p.filename === null).map((p) => [p.name, p.data.toString('utf8')]));
        return { fields, file: parts.find((p) => p.name === 'file')?.data ?? null };
      };

      type MediaPath = FastifyRequest<{ Params: { profileId: string; mediaId: string } }>;
      /** The caller's media named in the path, or an answer sent. */
      const pathMedia = (request: MediaPath, reply: FastifyReply): SnapMedia | null => {
        const own = ownProfile(request, reply);
        return own && mediaOf(request, reply, own.profile, request.params.mediaId);
      };
      /** An upload call's media and multipart form, or an answer sent. */
      const uploadCall = (request: MediaPath, reply: FastifyReply) => {
        const media = pathMedia(request, reply);
        const form = media && formOf(request, reply);
        return media && form ? { media, form } : null;
      };

      app.post<{ Params: { profileId: string; mediaId: string } }>(
        '/v1/public_profiles/:profileId/media/:mediaId/multipart-upload-part',
        async (request, reply) => {
          const call = uploadCall(request, reply);
          if (!call) return reply;
          const { media, form } = call;
          const checked = checkPart(form.fields, form.file);
          if ('code' in checked) return refuse(reply, checked);
          if (media.finalizedAt !== null)
            return snapError(reply, 400, 'E2007', 'the media upload was finalized already');
          const fault = state.faults.take('upload');
          if (sendFault(reply, fault, { code: 'E2001', message: 'the part was refused' })) return reply;
          media.parts.set(checked.partNumber, Buffer.from(form.file!));
          if (fault === 'ambiguous') return hangUp(reply);
          return snapOk({});
        },
      );

      app.post<{ Params: { profileId: string; mediaId: string } }>(
        '/v1/public_profiles/:profileId/media/:mediaId/multipart-upload-finalize',
        async (request, reply) => {
          const call = uploadCall(request, reply);
          if (!call) return reply;
          const { media, form } = call;
          if (form.fields.get('action') !== 'FINALIZE')
            return snapError(reply, 400, 'E1001', 'action must be FINALIZE on the finalize path');
          if (media.finalizedAt !== null) return snapOk({});
          const fault = state.faults.take('upload');
          if (sendFault(reply, fault, { code: 'E2001', message: 'the upload was refused' })) return reply;
          const file = finalizeFile(media);
          if ('code' in file) return refuse(reply, file);
          media.file = file;
          media.parts.clear();
          media.finalizedAt = now();
          // `POST /_faults {op: 'processing'}`: Snap's processing of this media ends in an error.
          if (state.faults.take('processing')) media.failReason = 'TRANSCODING_FAILED';
          if (fault === 'ambiguous') return hangUp(reply);
          return snapOk({});
        },
      );

      // The media entity with its `media_status` (the Marketing API's media shape: PENDING_UPLOAD until the
      // upload is finalized, then PROCESSING for `processingMs`, then READY, or FAILED with a reason).
      app.get<{ Params: { profileId: string; mediaId: string } }>(
        '/v1/public_profiles/:profileId/media/:mediaId',
        async (request, reply) => {
          const media = pathMedia(request, reply);
          if (!media) return reply;
          const status = statusOf(media, now(), state.config.processingMs);
          const entity = {
            id: media.id,
            public_profile_id: media.profileId,
            type: media.type,
            name: media.name,
            media_status: status,
            ...(status === 'FAILED' ? { failure_reason: media.failReason } : {}),
            ...(media.file ? { file_size_in_bytes: media.file.size, duration_in_seconds: media.file.durationSec } : {}),
            expires_at: new Date(media.createdAt + MEDIA_TTL_MS).toISOString(),
          };
          return snapOk({ media: [{ sub_request_status: 'SUCCESS', media: entity }] });
        },
      );

      /** A media that can be posted now as `kind`, or an answer sent. */
      const postable = (
        request: FastifyRequest,
        reply: FastifyReply,
        profile: SnapProfile,
        mediaId: string,
        kind: Kind,
      ): SnapMedia | null => {
        const media = mediaOf(request, reply, profile, mediaId);
        if (!media) return null;
        const status = statusOf(media, now(), state.config.processingMs);
        let refusal: Refusal | null = null;
        if (status === 'PENDING_UPLOAD')
          refusal = { status: 400, code: 'MEDIA_NOT_UPLOADED', message: 'the media upload was not finalized' };
        else if (status === 'PROCESSING')
          refusal = {
            status: 400,
            code: 'MEDIA_PROCESSING',
            message: 'the media is still processing: post it once it is READY',
          };
        else if (status === 'FAILED')
          refusal = { status: 400, code: 'MEDIA_FAILED', message: `the media failed processing (${media.failReason})` };
        else if (media.postedAs)
          refusal = {
            status: 400,
            code: 'MEDIA_POSTING_ALREADY_IN_PROGRESS',
            message: `the media was posted already (${media.postedAs})`,
          };
        else refusal = checkPostable(media.file!, kind);
        if (refusal) {
          refuse(reply, refusal);
          return null;
        }
        return media;
      };

      /** Records the post once the call is accepted: a post is public when its creation call succeeds. */
      const record = (
        user: OAuthUser,
        profile: SnapProfile,
        media: SnapMedia,
        kind: Kind,
        id: string,
        text: string,
        extra: Record<string, unknown>,
      ) => {
        media.postedAs = id;
        const f = media.file!;
        state.posts.push({
          id,
          text,
          media: [{ type: f.mimeType.startsWith('video/') ? 'video' : 'image', mimeType: f.mimeType, size: f.size }],
          replyTo: null,
          author: user.id,
          destination: profile.id,
          createdAt: new Date(now()).toISOString(),
          extra: {
            contentType: kind,
            mediaId: media.id,
            mediaName: media.name,
            sha256: f.sha256,
            durationSec: f.durationSec,
            width: f.width,
            height: f.height,
            ...extra,
          },
        });
      };

      const post =
        (
          kind: Kind,
          create: (body: Record<string, unknown>) =>
            | Refusal
            | {
                mediaId: string;
                text: string;
                extra: Record<string, unknown>;
                answer(id: string): Record<string, unknown>;
              },
        ) =>
        async (request: FastifyRequest<{ Params: { profileId: string } }>, reply: FastifyReply) => {
          const own = ownProfile(request, reply);
          if (!own) return reply;
          const body = jsonBody(request, reply);
          if (!body) return reply;
          const checked = create(body);
          if ('code' in checked) return refuse(reply, checked);
          const media = postable(request, reply, own.profile, checked.mediaId, kind);
          if (!media) return reply;
          const fault = state.faults.take('publish');
          if (sendFault(reply, fault, { code: 'E2020', message: `the ${kind.replace('_', ' ')} was refused` }))
            return reply;
          const id = randomUUID();
          record(own.user, own.profile, media, kind, id, checked.text, checked.extra);
          if (fault === 'ambiguous') return hangUp(reply);
          return snapOk(checked.answer(id));
        };

      // ASSETS, story posting: `{media_id}`; a story carries no caption.
      app.post(
        '/v1/public_profiles/:profileId/stories',
        post('story', (body) =>
          typeof body.media_id === 'string' && body.media_id
            ? { mediaId: body.media_id, text: '', extra: {}, answer: (id) => ({ story_id: id }) }
            : { status: 400, code: 'E1001', message: 'media_id is required' },
        ),
      );

      // ASSETS, saved stories: a titled story kept on the profile.
      app.post(
        '/v1/public_profiles/:profileId/saved_stories',
        post('saved_story', (body) => {
          const c = checkSavedStory(body);
          if ('code' in c) return c;
          return {
            mediaId: c.mediaId,
            text: c.title,
            extra: { title: c.title },
            answer: (id) => ({
              saved_stories: [{ sub_request_status: 'SUCCESS', saved_story: { id, title: c.title } }],
            }),
          };
        }),
      );

      // ASSETS, spotlights: a video with a description, in a locale.
      app.post(
        '/v1/public_profiles/:profileId/spotlights',
        post('spotlight', (body) => {
          const c = checkSpotlight(body);
          if ('code' in c) return c;
          return {
            mediaId: c.mediaId,
            text: c.description,
            extra: { description: c.description, locale: c.locale, skipSaveToProfile: c.skipSaveToProfile },
            answer: (id) => ({ spotlight_id: id }),
          };
        }),
      );
    },
  };
}
