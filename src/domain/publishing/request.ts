import type { AppContext } from '../../context.js';
import type { AccountTable } from '../../store/schema.js';
import type { PostRow, TargetRow } from '../../store/publishing.js';
import type { MediaRef, PublishRequest, ThreadItem, ThreadProgress } from '../../platforms/types.js';
import { accountCredentials } from '../accounts/save-account.js';

function parseJson<T>(text: string | null | undefined, fallback: T): T {
  if (!text) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** A stored media item (a post's, a target's or a thread item's), as validated when the post was written. */
interface StoredMedia {
  type?: string;
  url?: unknown;
  mimeType?: string | null;
  size?: unknown;
  altText?: string | null;
  filename?: string | null;
  thumbnail?: string | null;
  instagramThumbnail?: string | null;
}

/** A stored thread item (platformSpecificData.threadItems). */
interface StoredThreadItem {
  content?: unknown;
  mediaItems?: unknown;
}

function toMediaRef(m: StoredMedia | null): MediaRef {
  return {
    type: m?.type === 'video' || m?.type === 'gif' || m?.type === 'document' ? m.type : 'image',
    url: String(m?.url ?? ''),
    mimeType: m?.mimeType ?? null,
    size: typeof m?.size === 'number' ? m.size : null,
    altText: m?.altText ?? null,
    filename: m?.filename ?? null,
    thumbnail: m?.thumbnail ?? null,
    instagramThumbnail: m?.instagramThumbnail ?? null,
  };
}

const mediaList = (value: unknown): MediaRef[] => (Array.isArray(value) ? value.map(toMediaRef) : []);

/**
 * The adapter's view of one target: its customContent/customMedia over the post's, the thread (whose
 * first item is the root, reference §4.6) split into root + replies, first comment and title from
 * platformSpecificData, and the decrypted account. The idempotency key is the target id: stable across
 * attempts and processes. `resume` is what earlier attempts of a thread already posted.
 */
export function buildPublishRequest(
  ctx: AppContext,
  post: PostRow,
  target: TargetRow,
  account: AccountTable,
): PublishRequest {
  const psd = parseJson<Record<string, unknown>>(target.platform_specific_data, {});
  let content = target.custom_content ?? post.content;
  let media =
    target.custom_media !== null
      ? mediaList(parseJson(target.custom_media, []))
      : mediaList(parseJson(post.media_items, []));
  let threadItems: ThreadItem[] = [];
  const thread = Array.isArray(psd.threadItems) ? (psd.threadItems as (StoredThreadItem | null)[]) : [];
  if (thread.length > 0) {
    const [root, ...replies] = thread;
    if (typeof root?.content === 'string' && root.content !== '') content = root.content;
    if (Array.isArray(root?.mediaItems) && root.mediaItems.length > 0) media = mediaList(root.mediaItems);
    threadItems = replies.map((r) => ({ content: String(r?.content ?? ''), media: mediaList(r?.mediaItems) }));
  }
  return {
    account: accountCredentials(ctx, account),
    content,
    media,
    threadItems,
    platformSpecificData: psd,
    firstComment: typeof psd.firstComment === 'string' ? psd.firstComment : null,
    title: typeof psd.title === 'string' ? psd.title : post.title,
    idempotencyKey: target.target_id,
    resume: threadItems.length > 0 ? parseJson<ThreadProgress | null>(target.thread_progress, null) : null,
  };
}
