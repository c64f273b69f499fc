import { readAtMost } from '../io.js';
import { textRuleError } from '../rules/text.js';
import {
  PlatformError,
  type FirstCommentResult,
  type MediaRef,
  type PlatformIO,
  type ProcessingState,
  type PublishRequest,
  type PublishResult,
} from '../types.js';
import { graph, graphBase, type FacebookOptions } from './api.js';
import { MESSAGE } from './rules.js';

/*
 * Publishing as a Page (https://developers.facebook.com/docs/pages-api/posts): every call with the Page's
 * token. Each function here makes one kind of post; index.ts picks it from the target.
 */

/** How long to wait between two looks at a video Facebook is processing. */
const PROCESSING_CHECK_MS = 10_000;
/** Facebook takes photos up to 10 MB (platforms.md section 4). */
const PHOTO_MAX = 10 * 1024 * 1024;

export interface PageAccess {
  pageId: string;
  token: string;
}

export const postUrl = (id: string) => {
  const [page, post] = id.split('_');
  return post ? `https://www.facebook.com/${page}/posts/${post}` : `https://www.facebook.com/${id}`;
};

export function checkText(req: PublishRequest): void {
  const tooLong = textRuleError(MESSAGE, req.content, 'the post');
  if (tooLong) throw new PlatformError('rejected', tooLong, { platformCode: 'message_too_long' });
}

/** One photo, uploaded unpublished (`published=false`) from its bytes: its id, to attach or to make a story. */
async function unpublishedPhoto(
  opts: FacebookOptions,
  io: PlatformIO,
  page: PageAccess,
  media: MediaRef,
): Promise<string> {
  const opened = await io.openMedia(media);
  const read = await readAtMost(new Response(opened.stream as AsyncIterable<Uint8Array>), PHOTO_MAX);
  if (read.truncated)
    throw new PlatformError('rejected', 'a photo is over 10 MB, the most Facebook takes', {
      platformCode: 'photo_too_large',
    });
  const type = opened.contentType.startsWith('image/') ? opened.contentType : (media.mimeType ?? 'image/jpeg');
  const form = new FormData();
  form.set('published', 'false');
  form.set('source', new Blob([new Uint8Array(read.bytes)], { type }), media.filename ?? 'photo');
  const res = await graph(io, {
    method: 'POST',
    url: `${graphBase(opts)}/${page.pageId}/photos`,
    token: page.token,
    form,
  });
  const id = res.body?.id;
  if (!id)
    throw new PlatformError('unavailable', 'Facebook stored the photo without giving its id', {
      raw: res.raw.slice(0, 2000),
    });
  return String(id);
}

/** The first http(s) URL of a text, which Facebook turns into a link attachment. */
const firstUrl = (text: string) => /https?:\/\/[^\s<>"']+/i.exec(text)?.[0]?.replace(/[.,;:!?)]+$/, '') ?? null;

/** A feed post: text, a link, or up to ten photos attached to one post. */
export async function feedPost(
  opts: FacebookOptions,
  io: PlatformIO,
  page: PageAccess,
  req: PublishRequest,
): Promise<PublishResult> {
  checkText(req);
  const photos: string[] = [];
  for (const m of req.media) photos.push(await unpublishedPhoto(opts, io, page, m));
  const link = photos.length ? null : firstUrl(req.content);
  const res = await graph(io, {
    method: 'POST',
    url: `${graphBase(opts)}/${page.pageId}/feed`,
    token: page.token,
    json: {
      message: req.content,
      ...(link ? { link } : {}),
      ...(photos.length ? { attached_media: photos.map((id) => ({ media_fbid: id })) } : {}),
      published: true,
    },
    creates: true,
  });
  const id = String(res.body?.id ?? '');
  if (!id)
    throw new PlatformError('ambiguous', 'Facebook answered the post without its id', { raw: res.raw.slice(0, 2000) });
  return {
    platformPostId: id,
    platformPostUrl: postUrl(id),
    extra: { pageId: page.pageId, ...(photos.length ? { photoIds: photos } : {}) },
  };
}

/** A photo story: the photo unpublished, then `photo_stories`. Stories show no text. */
export async function photoStory(
  opts: FacebookOptions,
  io: PlatformIO,
  page: PageAccess,
  media: MediaRef,
): Promise<PublishResult> {
  const photoId = await unpublishedPhoto(opts, io, page, media);
  const res = await graph(io, {
    method: 'POST',
    url: `${graphBase(opts)}/${page.pageId}/photo_stories`,
    token: page.token,
    json: { photo_id: photoId },
    creates: true,
  });
  const id = String(res.body?.post_id ?? '');
  if (!id)
    throw new PlatformError('ambiguous', 'Facebook answered the story without its post id', {
      raw: res.raw.slice(0, 2000),
    });
  return {
    platformPostId: id,
    platformPostUrl: `https://www.facebook.com/stories/${page.pageId}`,
    extra: { pageId: page.pageId, photoId },
  };
}

/** `GET /{video}?fields=status`: processing, ready or failed. */
export async function videoState(
  opts: FacebookOptions,
  io: PlatformIO,
  page: PageAccess,
  videoId: string,
): Promise<ProcessingState> {
  const res = await graph(io, { method: 'GET', url: `${graphBase(opts)}/${videoId}?fields=status`, token: page.token });
  const status = res.body?.status ?? {};
  if (status.video_status === 'ready') return { state: 'ready' };
  if (status.video_status === 'error' || status.processing_phase?.status === 'error') {
    const why = status.processing_phase?.errors?.[0]?.message ?? 'the video could not be processed';
    return {
      state: 'failed',
      reason: `Facebook could not process the video: ${why}`,
      platformCode: String(status.processing_phase?.errors?.[0]?.code ?? 'video_error'),
    };
  }
  return { state: 'processing', waitMs: PROCESSING_CHECK_MS };
}

/** `POST /{object}/comments`: best effort, the post is out either way. */
export async function firstComment(
  opts: FacebookOptions,
  io: PlatformIO,
  page: PageAccess,
  objectId: string,
  text: string | null | undefined,
): Promise<FirstCommentResult | undefined> {
  if (!text) return undefined;
  try {
    const res = await graph(io, {
      method: 'POST',
      url: `${graphBase(opts)}/${objectId}/comments`,
      token: page.token,
      json: { message: text },
      creates: true,
    });
    return { status: 'posted', commentId: res.body?.id ? String(res.body.id) : null };
  } catch (error) {
    return { status: 'failed', errorMessage: (error as Error).message };
  }
}
