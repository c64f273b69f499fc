import type { FastifyInstance, FastifyReply } from 'fastify';
import { registerGraph, type GraphCall, type GraphHandler, type GraphNode } from '../graph/index.js';
import { graphError, sendGraphFault, settleAmbiguous } from '../graph/errors.js';
import { PAGE_HANDLERS } from '../graph/pages.js';
import { SUBSCRIPTION_HANDLERS } from '../graph/webhooks.js';
import { liveToken, newId, world, type GraphObject, type GraphPage } from '../graph/world.js';
import type { Simulator, SimulatorState } from '../types.js';
import { subscribersOf } from '../metrics.js';
import { instagramExtras } from './extras.js';
import { ACCOUNT_INSIGHTS_HANDLERS } from './account-insights.js';
import { INSIGHTS_HANDLERS } from './insights.js';
import { addComment, asList, INBOX_HANDLERS, registerInbound } from './inbox.js';
import { actsFor, instagramLogin } from './login.js';

export interface InstagramSimulatorOptions {
  /** Clock for tokens and container processing. Default: real time. */
  now?: () => Date;
}

/*
 * Instagram content publishing through Facebook Login, on the Graph core
 * (https://developers.facebook.com/docs/instagram-platform/content-publishing): each Page's linked
 * professional account (`instagram_business_account`) is an IGUser.
 * - `POST /{ig-user}/media` makes a container (ShadowIGMediaBuilder) from `image_url` or `video_url`,
 *   which Graph fetches itself (an image must be a JPEG: code 9004 / 2207052 otherwise), or a video
 *   container with `upload_type=resumable` whose bytes come to rupload (`/ig-api-upload`, below); `media_type` REELS, STORIES, CAROUSEL (2-10 finished children made with
 *   `is_carousel_item`); a video container is IN_PROGRESS for processingMs, then FINISHED;
 * - `GET /{container}?fields=status_code,status`; `POST /{ig-user}/media_publish {creation_id}` publishes
 *   a FINISHED container once (code 9007 / 2207027 before), at most 100 a day (code 9 / 2207042);
 * - `GET /{ig-user}/content_publishing_limit`, `POST /{media}/comments`, `GET /{media}?fields=permalink`,
 *   `GET /{ig-user}/media` and `/stories` (the lookup after a lost answer; a story lives 24 hours);
 * - the User Profile API (`GET /{igsid}`) and the Audio API (`GET /ig_audio`, `GET /{audio-id}`): extras.ts.
 * Messaging, comment moderation, ice breakers and `_inbound` with Meta's signed webhooks: inbox.ts.
 * Instagram does not delete through the API. Instagram Login (login.ts) is served beside Facebook Login:
 * its token acts as the professional account itself.
 */

const QUOTA = 100;
const DAY_MS = 24 * 3600_000;

function igPage(state: SimulatorState, igUserId: string): GraphPage | undefined {
  return [...world(state).pages.values()].find((p) => p.igUserId === igUserId);
}

/** The IG user's Page owner with a user token, or that Page's token, may publish. */
function refused(call: GraphCall): unknown | null {
  if (actsFor(call.state, call.token, call.node.id)) return null;
  return graphError(call.reply, 400, {
    message: '(#10) Application does not have permission for this action',
    code: 10,
  });
}

async function fetchable(url: unknown): Promise<{ size: number; type: string; jpeg: boolean } | null> {
  if (typeof url !== 'string') return null;
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    const bytes = Buffer.from(await res.arrayBuffer());
    // What the bytes are, whatever the Content-Type says: a JPEG starts FF D8 FF.
    const jpeg = bytes.length > 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff;
    return res.ok && bytes.length ? { size: bytes.length, type: res.headers.get('content-type') ?? '', jpeg } : null;
  } catch {
    return null;
  }
}

function statusOf(c: GraphObject, now: number): string {
  if (c.data.published) return 'PUBLISHED';
  if (c.data.failed && now >= (c.data.readyAt as number)) return 'ERROR';
  return now >= (c.data.readyAt as number) ? 'FINISHED' : 'IN_PROGRESS';
}

const container: GraphHandler = async (call) => {
  const no = refused(call);
  if (no) return no;
  const { params: p, state, node, now } = call;
  const type = String(p.media_type ?? '').toUpperCase();
  const bad = (message: string, subcode?: number) =>
    graphError(call.reply, 400, { message: `(#100) ${message}`, code: 100, subcode });
  if (type && !['REELS', 'STORIES', 'CAROUSEL', 'VIDEO', 'IMAGE'].includes(type))
    return bad(`media_type ${type} is not supported`);
  const collaborators = p.collaborators === undefined ? [] : asList(p.collaborators);
  if (!collaborators || collaborators.length > 3) return bad('collaborators takes at most 3 usernames', 2207064);
  // x and y are compared as sent: anything but a number in [0, 1] fails the check below.
  const tags = (p.user_tags === undefined ? [] : asList(p.user_tags)) as
    | ({ username?: unknown; x: number; y: number } | null)[]
    | null;
  if (
    !tags ||
    tags.some((t) => !t || typeof t.username !== 'string' || !(t.x >= 0 && t.x <= 1) || !(t.y >= 0 && t.y <= 1))
  )
    return bad('user_tags need a username and x, y between 0 and 1');
  if (p.caption !== undefined && [...String(p.caption)].length > 2200) return bad('The caption is too long', 2207010);
  const fault = state.faults.take('upload');
  if (sendGraphFault(call.reply, fault)) return call.reply;
  let data: Record<string, unknown>;
  if (type === 'CAROUSEL') {
    const ids = asList(p.children)?.map(String) ?? [];
    const children = ids.map((id) => world(state).objects.get(id));
    if (ids.length < 2 || ids.length > 10) return bad('A carousel takes 2 to 10 children', 2207030);
    if (
      children.some(
        (c) =>
          !c ||
          c.type !== 'ShadowIGMediaBuilder' ||
          !c.data.carouselItem ||
          c.ownerId !== node.id ||
          statusOf(c, now) !== 'FINISHED',
      )
    ) {
      return bad('Every child must be a FINISHED carousel item container of this user', 2207027);
    }
    data = { kind: 'CAROUSEL', children: ids, media: children.map((c) => c!.data.media), readyAt: now };
  } else if (String(p.upload_type ?? '').toLowerCase() === 'resumable') {
    // The resumable upload: the bytes come to rupload (/ig-api-upload) next; until then IN_PROGRESS.
    if (!['REELS', 'VIDEO', 'STORIES'].includes(type) || p.video_url !== undefined)
      return bad('upload_type=resumable is for a video container without video_url');
    data = {
      kind: type,
      carouselItem: p.is_carousel_item === true || p.is_carousel_item === 'true',
      resumable: true,
      received: 0,
      media: { type: 'video', size: 0, mimeType: 'video/mp4', url: null },
      readyAt: Number.MAX_SAFE_INTEGER,
      failed: false,
    };
  } else {
    const video = type === 'REELS' || type === 'VIDEO' || (type === 'STORIES' && p.video_url !== undefined);
    const fetched = await fetchable(video ? p.video_url : p.image_url);
    if (!fetched)
      return graphError(call.reply, 400, {
        message: "Media download has failed. The media URI doesn't meet our requirements.",
        code: 9004,
        subcode: 2207052,
      });
    // Instagram publishes JPEG images only (content-publishing "Limitations": "JPEG is the only image
    // format supported"): a PNG or WebP at image_url is refused.
    if (!video && !fetched.jpeg) {
      return graphError(call.reply, 400, {
        message: 'Only photo or video can be accepted as media type.',
        code: 9004,
        subcode: 2207052,
        userTitle: 'Media download has failed',
        userMessage: 'The image format is not supported: JPEG is the only image format Instagram publishes.',
      });
    }
    data = {
      kind: type || 'IMAGE',
      carouselItem: p.is_carousel_item === true || p.is_carousel_item === 'true',
      media: {
        type: video ? 'video' : 'image',
        size: fetched.size,
        mimeType: fetched.type,
        url: String(video ? p.video_url : p.image_url),
      },
      readyAt: video ? now + state.config.processingMs : now,
      failed: video && state.faults.take('processing') !== null,
    };
  }
  const fields = [
    'caption',
    'share_to_feed',
    'thumb_offset',
    'cover_url',
    'audio_name',
    'trial_params',
    'location_id',
    'alt_text',
  ];
  const extra = Object.fromEntries(fields.filter((f) => p[f] !== undefined).map((f) => [f, p[f]]));
  const c: GraphObject = {
    id: newId(state),
    type: 'ShadowIGMediaBuilder',
    ownerId: node.id,
    createdAt: now,
    data: { ...data, ...extra, collaborators, userTags: tags },
  };
  world(state).objects.set(c.id, c);
  return settleAmbiguous(call.reply, fault, { id: c.id });
};

const readContainer: GraphHandler = (call) => {
  const c = call.node.object!;
  const status = statusOf(c, call.now);
  return {
    id: c.id,
    status_code: status,
    status:
      status === 'ERROR'
        ? 'Error: the media could not be processed (2207082)'
        : status === 'FINISHED'
          ? 'Finished: Media has been uploaded and it is ready to be published.'
          : status,
  };
};

function usage(state: SimulatorState, igUserId: string, now: number): number {
  return [...world(state).objects.values()].filter(
    (o) => o.type === 'IGMedia' && o.ownerId === igUserId && now - o.createdAt < DAY_MS,
  ).length;
}

const publish: GraphHandler = (call) => {
  const no = refused(call);
  if (no) return no;
  const { params, state, node, now } = call;
  const c = world(state).objects.get(String(params.creation_id));
  if (!c || c.type !== 'ShadowIGMediaBuilder' || c.ownerId !== node.id)
    return graphError(call.reply, 400, { message: '(#100) creation_id is not a container of this user', code: 100 });
  const status = statusOf(c, now);
  if (status === 'PUBLISHED')
    return graphError(call.reply, 400, {
      message: 'The media has already been published',
      code: 9007,
      subcode: 2207006,
    });
  if (status !== 'FINISHED')
    return graphError(call.reply, 400, {
      message: 'Media ID is not available',
      code: 9007,
      subcode: 2207027,
      userTitle: 'The media is not ready for publishing, please wait for a moment',
    });
  if (c.data.carouselItem)
    return graphError(call.reply, 400, {
      message: '(#100) A carousel item is published through its carousel',
      code: 100,
    });
  // https://developers.facebook.com/docs/instagram-platform/content-publishing/: 100 API-published posts
  // per account in a 24-hour moving period, enforced on media_publish (`_config {rateLimits: false}` lifts it).
  if (state.config.rateLimits && usage(state, node.id, now) >= QUOTA)
    return graphError(call.reply, 400, { message: 'Application request limit reached', code: 9, subcode: 2207042 });
  const fault = state.faults.take('publish');
  if (sendGraphFault(call.reply, fault)) return call.reply;
  c.data.published = true;
  const media: GraphObject = {
    id: newId(state),
    type: 'IGMedia',
    ownerId: node.id,
    createdAt: now,
    data: { containerId: c.id, kind: c.data.kind, caption: c.data.caption ?? '' },
  };
  world(state).objects.set(media.id, media);
  const items = (c.data.kind === 'CAROUSEL' ? c.data.media : [c.data.media]) as {
    type: string;
    size: number;
    mimeType: string;
    url: string;
  }[];
  state.posts.push({
    id: media.id,
    text: c.data.kind === 'STORIES' ? '' : String(c.data.caption ?? ''),
    media: items,
    author: node.id,
    destination: node.id,
    createdAt: new Date(now).toISOString(),
    extra: {
      kind: c.data.kind,
      comments: [],
      collaborators: c.data.collaborators,
      userTags: c.data.userTags,
      ...Object.fromEntries(
        ['share_to_feed', 'thumb_offset', 'cover_url', 'audio_name', 'trial_params']
          .filter((k) => c.data[k] !== undefined)
          .map((k) => [k, c.data[k]]),
      ),
    },
  });
  return settleAmbiguous(call.reply, fault, { id: media.id });
};

const limit: GraphHandler = (call) => ({
  data: [
    {
      quota_usage: usage(call.state, call.node.id, call.now),
      config: { quota_total: QUOTA, quota_duration: DAY_MS / 1000 },
    },
  ],
});

const readUser: GraphHandler = (call) => {
  const page = igPage(call.state, call.node.id)!;
  return {
    id: page.igUserId,
    username: page.igUsername,
    name: page.name,
    profile_picture_url: `https://scontent.cdninstagram.com/${page.igUserId}.jpg`,
    followers_count: subscribersOf(call.state, page.igUserId),
    media_count: usage(call.state, page.igUserId, call.now),
  };
};

/** What a media is made of: its container's first item (a story or reel is one), or nothing (external posts). */
function mediaKind(m: GraphObject, state: SimulatorState): 'image' | 'video' {
  const c = world(state).objects.get(String(m.data.containerId ?? ''));
  const first = (c?.data.kind === 'CAROUSEL' ? (c.data.media as unknown[])[0] : c?.data.media) as
    | { type?: string }
    | undefined;
  return first?.type === 'video' ? 'video' : 'image';
}

const readMedia: GraphHandler = (call) => {
  const m = call.node.object!;
  const page = igPage(call.state, m.ownerId);
  const kind = String(m.data.kind);
  const video = mediaKind(m, call.state) === 'video';
  const cdn = `https://scontent.cdninstagram.com/v/${m.id}`;
  return {
    id: m.id,
    permalink:
      kind === 'STORIES'
        ? `https://www.instagram.com/stories/${page?.igUsername ?? ''}/${m.id}/`
        : `https://www.instagram.com/p/${m.id.slice(-11)}/`,
    media_type:
      kind === 'CAROUSEL' ? 'CAROUSEL_ALBUM' : kind === 'IMAGE' || (kind === 'STORIES' && !video) ? 'IMAGE' : 'VIDEO',
    media_product_type: kind === 'STORIES' ? 'STORY' : kind === 'REELS' ? 'REELS' : 'FEED',
    media_url: video ? `${cdn}.mp4` : `${cdn}.jpg`,
    thumbnail_url: video ? `${cdn}_thumb.jpg` : undefined,
    caption: kind === 'STORIES' ? undefined : m.data.caption,
    timestamp: new Date(m.createdAt).toISOString(),
    username: page?.igUsername,
  };
};

/** A story is live for 24 hours; after that `/stories` leaves it out and its insights are empty. */
const STORY_TTL_MS = DAY_MS;

/**
 * `GET /{ig-user}/media` (newest first, `since` in epoch seconds) and `/stories` (the stories of the last
 * 24 hours: https://developers.facebook.com/docs/instagram-platform/reference/ig-user/stories): the user's media.
 */
function listMedia(stories: boolean): GraphHandler {
  return (call) => {
    const fault = call.state.faults.take('lookup');
    if (sendGraphFault(call.reply, fault)) return call.reply;
    const since = call.params.since === undefined ? null : Number(call.params.since) * 1000;
    const items = [...world(call.state).objects.values()]
      .filter(
        (o) =>
          o.type === 'IGMedia' &&
          o.ownerId === call.node.id &&
          (o.data.kind === 'STORIES') === stories &&
          (!stories || o.createdAt > call.now - STORY_TTL_MS) &&
          (since === null || o.createdAt >= since),
      )
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((o) => readMedia({ ...call, node: { id: o.id, type: 'IGMedia', object: o } }) as Record<string, unknown>);
    return { data: items, paging: { cursors: { before: 'QVFIU', after: 'QVFIU' } } };
  };
}

const comment: GraphHandler = (call) => {
  const m = call.node.object!;
  if (!actsFor(call.state, call.token, m.ownerId)) {
    return graphError(call.reply, 400, {
      message: '(#10) Application does not have permission for this action',
      code: 10,
    });
  }
  const text = typeof call.params.message === 'string' ? call.params.message : '';
  if (!text) return graphError(call.reply, 400, { message: '(#100) The parameter message is required', code: 100 });
  const fault = call.state.faults.take('comment');
  if (sendGraphFault(call.reply, fault)) return call.reply;
  const page = igPage(call.state, m.ownerId)!;
  const { id } = addComment(call.state, m, { id: page.igUserId, username: page.igUsername }, text, null, call.now);
  const inspected = call.state.posts.find((p) => p.id === m.id);
  if (inspected) (inspected.extra!.comments as unknown[]).push({ id, text });
  return settleAmbiguous(call.reply, fault, { id });
};

/**
 * rupload.facebook.com for a resumable container: `POST /ig-api-upload/{version}/{container}` with
 * `Authorization: OAuth <token>` (the token that may publish for the account), `offset` (the bytes
 * already received) and `file_size` (the whole video), the bytes as the body. Once every byte is in, the
 * container is processed for processingMs. Fault op `upload`.
 */
function registerRupload(app: FastifyInstance, state: SimulatorState, now: () => number): void {
  const refuse = (reply: FastifyReply, status: number, message: string) =>
    reply.status(status).send({ debug_info: { retriable: false, type: 'ProcessingFailedError', message } });
  app.post<{ Params: { version: string; id: string } }>('/ig-api-upload/:version/:id', async (request, reply) => {
    const m = /^OAuth\s+(\S+)$/.exec(request.headers.authorization ?? '');
    const token = liveToken(state, m?.[1], now());
    if (!token)
      return reply.status(401).send({
        debug_info: {
          retriable: false,
          type: 'OAuthException',
          message: 'Authorization: OAuth <a valid access token> is required',
        },
      });
    const c = world(state).objects.get(request.params.id);
    if (!c || c.type !== 'ShadowIGMediaBuilder' || !c.data.resumable)
      return refuse(reply, 400, 'not a container made with upload_type=resumable');
    if (!actsFor(state, token, c.ownerId)) return refuse(reply, 403, 'the token may not publish for this account');
    const offset = Number(request.headers.offset);
    const total = Number(request.headers.file_size);
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    if (
      request.headers.offset === undefined ||
      request.headers.file_size === undefined ||
      !Number.isInteger(offset) ||
      !Number.isInteger(total) ||
      total <= 0
    ) {
      return refuse(reply, 400, 'the offset and file_size headers are required (integers, file_size above 0)');
    }
    if (c.data.readyAt !== Number.MAX_SAFE_INTEGER) return refuse(reply, 400, 'the video was already uploaded');
    if (offset !== c.data.received || offset + body.length > total || !body.length)
      return refuse(reply, 400, `offset must be ${c.data.received as number} and offset + bytes at most file_size`);
    const fault = state.faults.take('upload');
    if (fault && fault !== 'ambiguous') {
      const status = fault === 'rate_limited' ? 429 : fault === 'unavailable' ? 503 : fault === 'auth' ? 401 : 400;
      return reply.status(status).send({
        debug_info: {
          retriable: fault === 'unavailable' || fault === 'rate_limited',
          type: fault,
          message: `sandbox fault: ${fault}`,
        },
      });
    }
    c.data.received = offset + body.length;
    if (c.data.received === total) {
      (c.data.media as { size: number }).size = total;
      c.data.readyAt = now() + state.config.processingMs;
      c.data.failed = state.faults.take('processing') !== null;
    }
    return settleAmbiguous(reply, fault, {
      success: true,
      message: c.data.received === total ? 'Upload successful.' : 'Chunk received.',
    });
  });
}

/** Instagram content publishing through Facebook Login, on the Graph core (see above). */
export function instagramSimulator(opts: InstagramSimulatorOptions = {}): Simulator {
  const now = () => (opts.now ? opts.now() : new Date()).getTime();
  return {
    platform: 'instagram',
    now,
    insights: true,
    faultOps: ['publish', 'upload', 'processing', 'token', 'comment', 'destinations', 'lookup', 'insights'],
    register(app: FastifyInstance, state: SimulatorState) {
      registerRupload(app, state, now);
      registerInbound(app, state, now);
      registerGraph(app, state, {
        now,
        unlisted: async (parts, request, reply, at) =>
          (await instagramLogin(state, parts, request, reply, at)) ?? instagramExtras(state, parts, request, reply, at),
        resolve(s, id): GraphNode | null {
          return igPage(s, id) ? { id, type: 'IGUser' } : null;
        },
        handlers: {
          ...PAGE_HANDLERS,
          'GET IGUser': readUser,
          'POST IGUser media': container,
          'POST IGUser media_publish': publish,
          'GET IGUser content_publishing_limit': limit,
          'GET ShadowIGMediaBuilder': readContainer,
          'GET IGMedia': readMedia,
          'GET IGUser media': listMedia(false),
          'GET IGUser stories': listMedia(true),
          'POST IGMedia comments': comment,
          ...INSIGHTS_HANDLERS,
          ...ACCOUNT_INSIGHTS_HANDLERS,
          ...INBOX_HANDLERS,
          ...SUBSCRIPTION_HANDLERS,
        },
      });
    },
  };
}
