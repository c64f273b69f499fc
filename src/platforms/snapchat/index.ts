import type { Config } from '../../config.js';
import { platformBaseUrl, platformSetting } from '../config.js';
import { countKinds } from '../rules/helpers.js';
import { textRuleError } from '../rules/text.js';
import {
  PlatformError,
  type Destination,
  type PlatformAdapter,
  type PlatformIO,
  type ProcessingHandle,
  type ProcessingStarted,
  type ProcessingState,
  type PublishRequest,
  type PublishResult,
} from '../types.js';
import { snapchatAnalytics } from './analytics.js';
import { profileUrl, snapRequest, spotlightUrl, token, type SnapchatOptions } from './api.js';
import { MAX_PART_BYTES, uploadMedia } from './media.js';
import { SNAPCHAT_DEFAULT_SCOPES, snapchatOAuth } from './oauth.js';
import { contentTypeOf, mediaProblem, savedStoryTitle, TEXT, type SnapContentType } from './rules.js';

/** How long to wait between two looks at a media Snap is processing. */
const PROCESSING_CHECK_MS = 5_000;

function snapchatOptions(config: Config): SnapchatOptions {
  const scopes = config.env.SNAPCHAT_SCOPES;
  const partMb = Number(config.env.SNAPCHAT_UPLOAD_PART_MB || 32);
  const partBytes = Math.floor(partMb * 1024 * 1024);
  return {
    apiUrl: platformBaseUrl(config, 'snapchat', 'https://businessapi.snapchat.com'),
    authUrl: platformBaseUrl(config, 'snapchat', 'https://accounts.snapchat.com', 'AUTH'),
    clientId: platformSetting(config, 'snapchat', 'CLIENT_ID'),
    clientSecret: platformSetting(config, 'snapchat', 'CLIENT_SECRET'),
    scopes: scopes ? scopes.split(/[ ,]+/).filter(Boolean) : SNAPCHAT_DEFAULT_SCOPES,
    partBytes: Number.isFinite(partBytes) && partBytes > 0 ? Math.min(partBytes, MAX_PART_BYTES) : MAX_PART_BYTES,
    locale: config.env.SNAPCHAT_LOCALE || 'en_US',
  };
}

/** The public profile the account posts as (chosen at connect). */
function profileOf(req: PublishRequest): string {
  const id = req.account.metadata.publicProfileId;
  if (typeof id !== 'string' || !id) {
    throw new PlatformError(
      'rejected',
      'the Snapchat account has no public profile selected: connect it again and choose one',
      { platformCode: 'public_profile_required' },
    );
  }
  return id;
}

/** The checks validation makes (rules.ts), again, before anything is uploaded. */
function checkRequest(req: PublishRequest): SnapContentType {
  const type = contentTypeOf(req.platformSpecificData);
  const problem = mediaProblem(
    countKinds(req.media.map((m) => ({ type: m.type, url: m.url, mimeType: m.mimeType ?? undefined }))),
    req.media.length,
    type,
  );
  if (problem) throw new PlatformError('rejected', problem.message, { platformCode: problem.rule });
  const tooLong = textRuleError(TEXT, req.content, type === 'spotlight' ? 'the spotlight description' : 'the text');
  if (tooLong) throw new PlatformError('rejected', tooLong, { platformCode: 'text_length' });
  return type;
}

/** The media's processing state from its `media_status`. */
/** A media object of Snapchat's public profile API, the fields read here. */
interface SnapMedia {
  media_status?: string;
  failure_reason?: string;
}

function stateOf(media: SnapMedia | null): ProcessingState {
  const status = media?.media_status;
  if (status === 'READY') return { state: 'ready' };
  if (status === 'FAILED')
    return {
      state: 'failed',
      reason: `Snapchat could not process the media: ${media?.failure_reason ?? 'unknown reason'}`,
      platformCode: media?.failure_reason ?? 'MEDIA_FAILED',
    };
  return { state: 'processing', waitMs: PROCESSING_CHECK_MS };
}

export function createSnapchatAdapter(opts: SnapchatOptions): PlatformAdapter {
  const oauth = snapchatOAuth(opts);
  const profilePath = (id: string) => `${opts.apiUrl}/v1/public_profiles/${encodeURIComponent(id)}`;

  async function readMedia(req: PublishRequest, io: PlatformIO, handle: ProcessingHandle): Promise<SnapMedia | null> {
    const res = await snapRequest(io, {
      method: 'GET',
      url: `${profilePath(String(handle.profileId))}/media/${encodeURIComponent(String(handle.mediaId))}`,
      token: token(req.account),
    });
    return res.body?.media?.[0]?.media ?? null;
  }

  /** Creates the story, saved story or spotlight with the processed media: the one call that posts. */
  async function finish(req: PublishRequest, io: PlatformIO, handle: ProcessingHandle): Promise<PublishResult> {
    const profileId = String(handle.profileId);
    const mediaId = String(handle.mediaId);
    const type = contentTypeOf(req.platformSpecificData);
    const where = profileUrl(req.account.metadata.publicProfileUsername as string | undefined);
    const post = (path: string, json: unknown) =>
      snapRequest(io, {
        method: 'POST',
        url: `${profilePath(profileId)}/${path}`,
        token: token(req.account),
        json,
        creates: true,
      });
    if (type === 'spotlight') {
      const res = await post('spotlights', {
        media_id: mediaId,
        description: req.content,
        locale: opts.locale,
        skip_save_to_profile: false,
      });
      const id = String(res.body?.spotlight_id ?? '');
      if (!id)
        throw new PlatformError('ambiguous', 'Snapchat answered the spotlight without its id', {
          endpoint: '/v1/public_profiles/{id}/spotlights',
        });
      return { platformPostId: id, platformPostUrl: spotlightUrl(id), extra: { contentType: type, mediaId } };
    }
    if (type === 'saved_story') {
      const title = savedStoryTitle(req.title ?? null, req.content);
      const res = await post('saved_stories', { saved_stories: [{ title, snap_sources: [{ media_id: mediaId }] }] });
      const id = String(res.body?.saved_stories?.[0]?.saved_story?.id ?? '');
      if (!id)
        throw new PlatformError('ambiguous', 'Snapchat answered the saved story without its id', {
          endpoint: '/v1/public_profiles/{id}/saved_stories',
        });
      return { platformPostId: id, platformPostUrl: where, extra: { contentType: type, mediaId, title } };
    }
    const res = await post('stories', { media_id: mediaId });
    const id = String(res.body?.story_id ?? '');
    if (!id)
      throw new PlatformError('ambiguous', 'Snapchat answered the story without its id', {
        endpoint: '/v1/public_profiles/{id}/stories',
      });
    return { platformPostId: id, platformPostUrl: where, extra: { contentType: type, mediaId } };
  }

  return {
    platform: 'snapchat',
    oauth,
    analytics: snapchatAnalytics(opts),

    /**
     * Encrypts and uploads the one media item, then one look at its processing: a media Snap has
     * processed already is posted at once, otherwise the engine waits (the handle is the media id:
     * nothing is uploaded again).
     */
    async publish(req, io): Promise<PublishResult | ProcessingStarted> {
      checkRequest(req);
      const profileId = profileOf(req);
      const media = req.media[0];
      const name = (media.filename ?? media.url.split('?')[0].split('/').pop() ?? '') || `herald-${req.idempotencyKey}`;
      const mediaId = await uploadMedia(opts, io, { profileId, media, token: token(req.account), name });
      const handle: ProcessingHandle = { profileId, mediaId };
      const state = await readMedia(req, io, handle)
        .then(stateOf)
        // The media exists: a failed look is only a reason to look again later.
        .catch((): ProcessingState => ({ state: 'processing', waitMs: PROCESSING_CHECK_MS }));
      if (state.state === 'failed')
        throw new PlatformError('rejected', state.reason, { platformCode: state.platformCode ?? null });
      if (state.state === 'processing') return { processing: { handle, waitMs: state.waitMs } };
      return finish(req, io, handle);
    },

    processing: {
      async check(handle, req, io) {
        return stateOf(await readMedia(req, io, handle));
      },
      finish(handle, req, io) {
        return finish(req, io, handle);
      },
    },

    destinations: {
      kind: 'profile',
      /** The public profiles of every organization the token's user belongs to. */
      async list(tokens, io, o) {
        const orgs = await snapRequest(io, {
          method: 'GET',
          url: `${opts.apiUrl}/v1/me/organizations`,
          token: tokens.accessToken,
        });
        const out: Destination[] = [];
        for (const entry of orgs.body?.organizations ?? []) {
          const org = entry?.organization?.id;
          if (!org) continue;
          const res = await snapRequest(io, {
            method: 'GET',
            url: `${opts.apiUrl}/v1/organizations/${encodeURIComponent(org)}/public_profiles`,
            token: tokens.accessToken,
          });
          for (const item of res.body?.public_profiles ?? []) {
            const p = item?.public_profile;
            if (!p?.id || (o?.ids && !o.ids.includes(String(p.id)))) continue;
            const count = Number(p.subscriber_count);
            out.push({
              id: String(p.id),
              name: p.display_name ?? p.snap_user_name ?? String(p.id),
              username: p.snap_user_name ?? null,
              picture: p.logo_urls?.manage_profile_logo_url ?? p.logo_urls?.original_logo_url ?? null,
              details: {
                subscriber_count: Number.isFinite(count) ? count : null,
                organization_id: p.organization_id ?? org,
                profile_tier: p.profile_tier ?? null,
              },
            });
          }
        }
        return out;
      },
      async select(destination, user) {
        if (!destination) throw new PlatformError('rejected', 'a Snapchat account posts as one of its public profiles');
        return {
          metadata: {
            publicProfileId: destination.id,
            publicProfileName: destination.name,
            publicProfileUsername: destination.username ?? null,
          },
          profile: {
            ...user.profile,
            username: destination.username ?? user.profile.username,
            displayName: destination.name,
            avatarUrl: destination.picture ?? null,
            profileUrl: profileUrl(destination.username),
          },
        };
      },
    },

    async refreshTokens(account, io) {
      if (!account.refreshToken)
        throw new PlatformError('auth', 'the Snapchat account has no refresh token; reconnect it', { revoked: true });
      return oauth.refresh(account.refreshToken, io);
    },
  };
}

/** The Snapchat adapter from configuration (SNAPCHAT_CLIENT_ID/SECRET, SNAPCHAT_API_URL, _AUTH_URL, SNAPCHAT_SCOPES, SNAPCHAT_UPLOAD_PART_MB, SNAPCHAT_LOCALE). */
export function snapchatAdapterFromConfig(config: Config): PlatformAdapter {
  return createSnapchatAdapter(snapchatOptions(config));
}
