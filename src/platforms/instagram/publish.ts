import { textRuleError } from '../rules/text.js';
import {
  PlatformError,
  type FirstCommentResult,
  type MediaRef,
  type PlatformIO,
  type ProcessingHandle,
  type ProcessingState,
  type PublishRequest,
  type PublishResult,
} from '../types.js';
import { graph, graphBase, graphUpload, type InstagramOptions } from './api.js';
import { CAPTION } from './rules.js';

/*
 * Content publishing through Facebook Login
 * (https://developers.facebook.com/docs/instagram-platform/content-publishing): a container
 * (`POST /{ig-user}/media`) from a public `image_url` or `video_url` that Instagram downloads itself;
 * video containers are processed (`status_code` IN_PROGRESS, then FINISHED); `POST /{ig-user}/media_publish`
 * with the FINISHED container makes the post. A carousel is 2 to 10 item containers, then one CAROUSEL
 * container of them. Every call with the token of the Page the account is linked to.
 */

/** How long to wait between two looks at a container Instagram is processing. */
const PROCESSING_CHECK_MS = 10_000;

export interface IgAccess {
  igUserId: string;
  token: string;
}

/** What publishing waits on: the container to publish, or a carousel's item containers before the carousel. */
export interface IgHandle extends ProcessingHandle {
  igUserId: string;
  kind: 'image' | 'reel' | 'story' | 'carousel';
  /** The container that media_publish takes (absent for a carousel until its items are FINISHED). */
  containerId?: string;
  /** A carousel's item containers. */
  children?: string[];
}

const psdOf = (req: PublishRequest) => req.platformSpecificData;

interface UserTag {
  username: string;
  x: number;
  y: number;
  mediaIndex?: number;
}

/** The tags of one media item (`mediaIndex`, 0 when absent), as Instagram takes them. */
function tagsFor(req: PublishRequest, index: number): { username: string; x: number; y: number }[] | undefined {
  const tags = Array.isArray(psdOf(req).userTags) ? (psdOf(req).userTags as UserTag[]) : [];
  const mine = tags
    .filter((t) => (t.mediaIndex ?? 0) === index)
    .map((t) => ({ username: t.username.replace(/^@/, ''), x: t.x, y: t.y }));
  return mine.length ? mine : undefined;
}

function collaborators(req: PublishRequest): string[] | undefined {
  const list = Array.isArray(psdOf(req).collaborators)
    ? (psdOf(req).collaborators as string[]).map((c) => c.replace(/^@/, ''))
    : [];
  if (list.length > 3)
    throw new PlatformError('rejected', `Instagram takes at most 3 collaborators (got ${list.length})`, {
      platformCode: 'collaborators_count',
    });
  return list.length ? list : undefined;
}

/** Caption checks Instagram makes (2,200 characters, 30 hashtags), before anything is sent. */
function checkCaption(req: PublishRequest): void {
  const tooLong = textRuleError(CAPTION, req.content, 'the caption');
  if (tooLong) throw new PlatformError('rejected', tooLong, { platformCode: 'caption_too_long' });
  const hashtags = req.content.match(/(^|\s)#[^\s#]+/gu)?.length ?? 0;
  if (hashtags > 30)
    throw new PlatformError('rejected', `Instagram takes at most 30 hashtags (got ${hashtags})`, {
      platformCode: 'hashtag_limit',
    });
}

/** `POST /{ig-user}/media`: one container's id. Not a post: a lost answer leaves an unused container at most. */
async function container(
  opts: InstagramOptions,
  io: PlatformIO,
  access: IgAccess,
  params: Record<string, unknown>,
): Promise<string> {
  const clean = Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined));
  const res = await graph(io, {
    method: 'POST',
    url: `${graphBase(opts)}/${access.igUserId}/media`,
    token: access.token,
    json: clean,
  });
  const id = res.body?.id;
  if (!id)
    throw new PlatformError('unavailable', 'Instagram made the container without giving its id', {
      raw: res.raw.slice(0, 2000),
    });
  return String(id);
}

const isVideo = (m: MediaRef) => m.type === 'video';

/** Bytes per rupload request of a resumable video upload. */
const RUPLOAD_CHUNK = 8 * 1024 * 1024;

/**
 * A video container: from `video_url`, or with `upload_type=resumable` and then every byte sent to
 * `rupload.facebook.com/ig-api-upload/{version}/{container}` (`Authorization: OAuth`, `offset`,
 * `file_size`), in chunks that each say where they start
 * (https://developers.facebook.com/docs/instagram-platform/content-publishing/resumable-uploads).
 */
async function videoContainer(
  opts: InstagramOptions,
  io: PlatformIO,
  access: IgAccess,
  m: MediaRef,
  params: Record<string, unknown>,
): Promise<string> {
  if (opts.videoUpload !== 'resumable') return container(opts, io, access, { ...params, video_url: m.url });
  const id = await container(opts, io, access, { ...params, upload_type: 'resumable' });
  const opened = await io.openMedia(m);
  const size = opened.size ?? m.size;
  if (!size)
    throw new PlatformError('rejected', "the video's size is unknown, which a resumable upload needs", {
      platformCode: 'media_size_unknown',
    });
  let offset = 0;
  let pending: Buffer[] = [];
  let held = 0;
  const send = async (chunk: Buffer) => {
    await graphUpload(io, {
      method: 'POST',
      url: `${opts.ruploadUrl ?? 'https://rupload.facebook.com'}/ig-api-upload/${opts.version}/${id}`,
      headers: {
        authorization: `OAuth ${access.token}`,
        offset: String(offset),
        file_size: String(size),
        'content-type': 'application/octet-stream',
      },
      body: new Uint8Array(chunk),
    });
    offset += chunk.length;
  };
  for await (const part of opened.stream as AsyncIterable<Buffer>) {
    pending.push(Buffer.from(part));
    held += part.length;
    while (held >= RUPLOAD_CHUNK) {
      const all = Buffer.concat(pending);
      await send(all.subarray(0, RUPLOAD_CHUNK));
      pending = [all.subarray(RUPLOAD_CHUNK)];
      held = all.length - RUPLOAD_CHUNK;
    }
  }
  if (held) await send(Buffer.concat(pending));
  if (offset !== size)
    throw new PlatformError('rejected', `the video had ${offset} bytes, not the ${size} announced`, {
      platformCode: 'media_size',
    });
  return id;
}

/** The reel's options (api-reference 4.6): a cover (`instagramThumbnail`) wins over a frame (`thumbOffset`). */
function reelFields(req: PublishRequest, media: MediaRef): Record<string, unknown> {
  const psd = psdOf(req);
  const cover = media.instagramThumbnail ?? undefined;
  const trial = psd.trialParams as { graduationStrategy?: string } | undefined;
  return {
    share_to_feed: typeof psd.shareToFeed === 'boolean' ? psd.shareToFeed : undefined,
    cover_url: cover,
    thumb_offset: !cover && typeof psd.thumbOffset === 'number' ? String(psd.thumbOffset) : undefined,
    audio_name: typeof psd.audioName === 'string' ? psd.audioName : undefined,
    trial_params: trial?.graduationStrategy ? { graduation_strategy: trial.graduationStrategy } : undefined,
  };
}

/** Makes the containers of a post: what to publish, or the carousel items to wait for first. */
export async function makeContainers(
  opts: InstagramOptions,
  io: PlatformIO,
  access: IgAccess,
  req: PublishRequest,
): Promise<IgHandle> {
  const psd = psdOf(req);
  const media = req.media;
  if (media.length === 0)
    throw new PlatformError('rejected', 'Instagram needs at least one image or video', {
      platformCode: 'media_required',
    });
  if (media.some((m) => m.type === 'document'))
    throw new PlatformError('rejected', 'Instagram does not take documents', { platformCode: 'media_type' });
  const base = { igUserId: access.igUserId };
  if (psd.contentType === 'story') {
    if (media.length !== 1)
      throw new PlatformError('rejected', 'a story takes one media item', { platformCode: 'story_media' });
    const m = media[0];
    const id = isVideo(m)
      ? await videoContainer(opts, io, access, m, { media_type: 'STORIES' })
      : await container(opts, io, access, { media_type: 'STORIES', image_url: m.url });
    return { ...base, kind: 'story', containerId: id };
  }
  checkCaption(req);
  const collab = collaborators(req);
  if (media.length === 1) {
    const m = media[0];
    if (isVideo(m)) {
      const id = await videoContainer(opts, io, access, m, {
        media_type: 'REELS',
        caption: req.content,
        collaborators: collab,
        user_tags: tagsFor(req, 0),
        ...reelFields(req, m),
      });
      return { ...base, kind: 'reel', containerId: id };
    }
    const id = await container(opts, io, access, {
      image_url: m.url,
      caption: req.content,
      collaborators: collab,
      user_tags: tagsFor(req, 0),
      alt_text: m.altText ?? undefined,
    });
    return { ...base, kind: 'image', containerId: id };
  }
  if (media.length > 10)
    throw new PlatformError('rejected', `a carousel takes at most 10 items (got ${media.length})`, {
      platformCode: 'media_count',
    });
  const children: string[] = [];
  for (const [i, m] of media.entries()) {
    children.push(
      isVideo(m)
        ? await videoContainer(opts, io, access, m, { media_type: 'VIDEO', is_carousel_item: true })
        : await container(opts, io, access, {
            image_url: m.url,
            is_carousel_item: true,
            user_tags: tagsFor(req, i),
            alt_text: m.altText ?? undefined,
          }),
    );
  }
  return { ...base, kind: 'carousel', children };
}

/** The carousel container, once its items are FINISHED. */
export function carousel(
  opts: InstagramOptions,
  io: PlatformIO,
  access: IgAccess,
  req: PublishRequest,
  children: string[],
): Promise<string> {
  return container(opts, io, access, {
    media_type: 'CAROUSEL',
    children,
    caption: req.content,
    collaborators: collaborators(req),
  });
}

/** `GET /{container}?fields=status_code,status`: FINISHED is ready, ERROR or EXPIRED failed, the rest processing. */
async function containerState(
  opts: InstagramOptions,
  io: PlatformIO,
  access: IgAccess,
  id: string,
): Promise<ProcessingState> {
  const res = await graph(io, {
    method: 'GET',
    url: `${graphBase(opts)}/${id}?fields=status_code,status`,
    token: access.token,
  });
  const code = String(res.body?.status_code ?? '');
  if (code === 'FINISHED') return { state: 'ready' };
  if (code === 'ERROR' || code === 'EXPIRED') {
    return {
      state: 'failed',
      reason: `Instagram could not process the media: ${res.body?.status ?? code}`,
      platformCode: `container_${code.toLowerCase()}`,
    };
  }
  if (code === 'PUBLISHED')
    return {
      state: 'failed',
      reason: 'the container was already published by an earlier attempt',
      platformCode: 'container_published',
    };
  return { state: 'processing', waitMs: PROCESSING_CHECK_MS };
}

/** Every container a handle waits on, in one state: failed if one failed, processing while one is. */
export async function handleState(
  opts: InstagramOptions,
  io: PlatformIO,
  access: IgAccess,
  handle: IgHandle,
): Promise<ProcessingState> {
  const ids = handle.containerId ? [handle.containerId] : (handle.children ?? []);
  let waiting: ProcessingState | null = null;
  for (const id of ids) {
    const state = await containerState(opts, io, access, id);
    if (state.state === 'failed') return state;
    if (state.state === 'processing') waiting = state;
  }
  return waiting ?? { state: 'ready' };
}

/** `GET /{ig-user}/content_publishing_limit`: refuses clearly when the 24-hour quota is used up. */
export async function checkQuota(opts: InstagramOptions, io: PlatformIO, access: IgAccess): Promise<void> {
  const res = await graph(io, {
    method: 'GET',
    url: `${graphBase(opts)}/${access.igUserId}/content_publishing_limit?fields=quota_usage,config`,
    token: access.token,
  });
  const usage = res.body?.data?.[0];
  const total = Number(usage?.config?.quota_total);
  if (Number.isFinite(total) && Number(usage?.quota_usage) >= total) {
    throw new PlatformError(
      'rate_limited',
      `the Instagram account has published ${usage.quota_usage} posts through the API in the last 24 hours, the most Instagram allows (${total}); Herald tries again later`,
      {
        platformCode: 'content_publishing_limit',
        retryAfterMs: 3_600_000,
      },
    );
  }
}

/** `POST /{ig-user}/media_publish`, then the permalink (best effort) and the first comment. */
export async function publishContainer(
  opts: InstagramOptions,
  io: PlatformIO,
  access: IgAccess,
  req: PublishRequest,
  handle: IgHandle,
  containerId: string,
): Promise<PublishResult> {
  const res = await graph(io, {
    method: 'POST',
    url: `${graphBase(opts)}/${access.igUserId}/media_publish`,
    token: access.token,
    json: { creation_id: containerId },
    creates: true,
  });
  const id = String(res.body?.id ?? '');
  if (!id)
    throw new PlatformError('ambiguous', 'Instagram answered the publish without the media id', {
      raw: res.raw.slice(0, 2000),
    });
  const link = await graph(io, {
    method: 'GET',
    url: `${graphBase(opts)}/${id}?fields=permalink`,
    token: access.token,
  }).then(
    (r) => (typeof r.body?.permalink === 'string' ? (r.body.permalink as string) : null),
    () => null,
  );
  const url =
    link ??
    (handle.kind === 'story'
      ? `https://www.instagram.com/stories/${String(req.account.metadata.igUsername ?? '')}/`
      : null);
  const result: PublishResult = {
    platformPostId: id,
    platformPostUrl: url,
    extra: { igUserId: access.igUserId, kind: handle.kind, containerId },
  };
  if (handle.kind !== 'story') {
    const comment = await firstComment(
      opts,
      io,
      access,
      id,
      req.firstComment ?? (psdOf(req).firstComment as string | undefined),
    );
    if (comment) result.firstComment = comment;
  }
  return result;
}

/** `POST /{media}/comments`: best effort, the post is out either way. */
async function firstComment(
  opts: InstagramOptions,
  io: PlatformIO,
  access: IgAccess,
  mediaId: string,
  text: string | null | undefined,
): Promise<FirstCommentResult | undefined> {
  if (!text) return undefined;
  try {
    const res = await graph(io, {
      method: 'POST',
      url: `${graphBase(opts)}/${mediaId}/comments`,
      token: access.token,
      json: { message: text },
      creates: true,
    });
    return { status: 'posted', commentId: res.body?.id ? String(res.body.id) : null };
  } catch (error) {
    return { status: 'failed', errorMessage: (error as Error).message };
  }
}
