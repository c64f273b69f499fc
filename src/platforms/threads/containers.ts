import { PlatformError, type MediaRef, type PlatformIO, type ProcessingState } from '../types.js';
import { thRequest, type ThreadsOptions } from './api.js';

/*
 * Threads publishes in two steps: a media container (`POST /{user}/threads`), which Threads fetches
 * and processes, then `POST /{user}/threads_publish?creation_id=`, the one call that makes the post
 * public. A carousel is item containers (`is_carousel_item=true`) and a CAROUSEL container naming them
 * in `children`. https://developers.facebook.com/docs/threads/posts
 */

/** The first look at a container Threads is processing, and the next ones. Meta advises about 30 s. */
export const FIRST_CHECK_MS = 30_000;
const NEXT_CHECK_MS = 10_000;

export interface ContainerSpec {
  text: string;
  media: MediaRef[];
  replyTo?: string | null;
  replyControl?: string | null;
}

const mediaParams = (m: MediaRef): Record<string, string | undefined> =>
  m.type === 'video'
    ? { media_type: 'VIDEO', video_url: m.url, alt_text: m.altText ?? undefined }
    : { media_type: 'IMAGE', image_url: m.url, alt_text: m.altText ?? undefined };

/** Creates the container(s) of one post and answers the id to publish. Threads fetches the media from their URLs. */
export async function createContainer(
  io: PlatformIO,
  opts: ThreadsOptions,
  token: string,
  spec: ContainerSpec,
): Promise<string> {
  const create = async (params: Record<string, string | undefined>) => {
    const res = await thRequest(io, opts, { method: 'POST', path: '/me/threads', token, params });
    const id = res.body?.id;
    if (typeof id !== 'string' && typeof id !== 'number')
      throw new PlatformError('unavailable', 'Threads created a container without answering its id', {
        endpoint: '/me/threads',
      });
    return String(id);
  };
  const common = {
    text: spec.text || undefined,
    reply_to_id: spec.replyTo ?? undefined,
    reply_control: spec.replyControl ?? undefined,
  };
  if (spec.media.length === 0) return create({ media_type: 'TEXT', ...common });
  if (spec.media.length === 1) return create({ ...mediaParams(spec.media[0]), ...common });
  const children: string[] = [];
  for (const m of spec.media) children.push(await create({ ...mediaParams(m), is_carousel_item: 'true' }));
  return create({ media_type: 'CAROUSEL', children: children.join(','), ...common });
}

/** `GET /{container}?fields=status,error_message` as the engine's processing state. */
export async function containerState(
  io: PlatformIO,
  opts: ThreadsOptions,
  token: string,
  id: string,
  waitMs = NEXT_CHECK_MS,
): Promise<ProcessingState> {
  const res = await thRequest(io, opts, {
    method: 'GET',
    path: `/${encodeURIComponent(id)}`,
    token,
    params: { fields: 'id,status,error_message' },
  });
  const status = res.body?.status;
  if (status === 'FINISHED' || status === 'PUBLISHED') return { state: 'ready' };
  if (status === 'IN_PROGRESS') return { state: 'processing', waitMs };
  if (status === 'EXPIRED')
    return {
      state: 'failed',
      reason: 'the Threads container expired (not published within 24 hours)',
      platformCode: 'EXPIRED',
    };
  const why = res.body?.error_message ?? status ?? 'unknown status';
  return { state: 'failed', reason: `Threads could not process the media: ${why}`, platformCode: String(why) };
}

/** `threads_publish`: the post goes public. Answers the thread's id. */
export async function publishContainer(
  io: PlatformIO,
  opts: ThreadsOptions,
  token: string,
  creationId: string,
): Promise<string> {
  if (io.signal?.aborted) throw new PlatformError('unavailable', 'publish cancelled before sending');
  const res = await thRequest(io, opts, {
    method: 'POST',
    path: '/me/threads_publish',
    token,
    params: { creation_id: creationId },
    creates: true,
  });
  const id = res.body?.id;
  // Accepted (2xx) but unreadable: the post probably exists.
  if (typeof id !== 'string' && typeof id !== 'number')
    throw new PlatformError('ambiguous', 'Threads accepted the publish but answered no id', {
      endpoint: '/me/threads_publish',
      status: res.status,
    });
  return String(id);
}

/** The thread's permalink (`GET /{id}?fields=permalink`); null when the read fails: the post is out either way. */
export async function permalinkOf(
  io: PlatformIO,
  opts: ThreadsOptions,
  token: string,
  id: string,
): Promise<string | null> {
  try {
    const res = await thRequest(io, opts, {
      method: 'GET',
      path: `/${encodeURIComponent(id)}`,
      token,
      params: { fields: 'id,permalink' },
    });
    return typeof res.body?.permalink === 'string' ? res.body.permalink : null;
  } catch {
    return null;
  }
}
