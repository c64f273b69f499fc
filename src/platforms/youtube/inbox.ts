import {
  PlatformError,
  type AccountCredentials,
  type InboundComment,
  type InboxCapability,
  type PlatformIO,
} from '../types.js';
import { token, watchUrl, ytRequest, type YouTubeOptions } from './api.js';

/** Pages of commentThreads one poll reads at most (100 threads a page, 1 quota unit each). */
const MAX_PAGES = 10;
/** How far the first poll of an account looks back. */
const FIRST_LOOK_BACK_MS = 24 * 3_600_000;

interface YtCommentJson {
  id: string;
  snippet: {
    videoId?: string;
    parentId?: string;
    textOriginal?: string;
    textDisplay?: string;
    authorDisplayName?: string;
    authorProfileImageUrl?: string;
    authorChannelUrl?: string;
    authorChannelId?: { value?: string };
    likeCount?: number;
    publishedAt?: string;
    updatedAt?: string;
  };
}

interface YtThreadJson {
  id: string;
  snippet: { videoId?: string; topLevelComment: YtCommentJson; totalReplyCount?: number };
  replies?: { comments?: YtCommentJson[] };
}

function channelIdOf(account: AccountCredentials): string {
  return String(account.metadata.channelId ?? account.platformUserId);
}

/**
 * YouTube's comments (Data API v3, scope youtube.force-ssl), polled: YouTube pushes no comments.
 * - sync: `commentThreads.list?allThreadsRelatedToChannelId=` newest first (order=time), page after page
 *   until a thread older than the last poll; a thread with more replies than the 5 it carries reads them
 *   with `comments.list?parentId=`. The cursor is the newest activity seen.
 * - reply: `comments.insert` with `snippet.parentId` under a comment, `commentThreads.insert` under the video;
 * - delete: `comments.delete` for the channel's own comments; YouTube lets no one delete someone else's,
 *   so the owner's way is `setModerationStatus=rejected` (gone from the video, as YouTube's studio does);
 * - hide: `setModerationStatus=heldForReview` (out of public view until published again), unhide: `published`;
 * - like: the API cannot rate a comment (comments have no rate method): PLATFORM_LIMITATION, as are
 *   private replies.
 * Quota: a `quotaExceeded` answer is rate_limited until midnight Pacific (api.ts), so the poll backs off.
 */
export function youTubeInbox(opts: YouTubeOptions): InboxCapability {
  const api = `${opts.apiUrl}/youtube/v3`;

  function toInbound(c: YtCommentJson, channelId: string, videoId: string): InboundComment {
    const author = c.snippet.authorChannelId?.value ?? null;
    return {
      postId: videoId,
      commentId: c.id,
      parentId: c.snippet.parentId ?? null,
      direction: author === channelId ? 'outgoing' : 'incoming',
      author: {
        id: author,
        name: c.snippet.authorDisplayName ?? null,
        username: null,
        picture: c.snippet.authorProfileImageUrl ?? null,
      },
      text: c.snippet.textOriginal ?? c.snippet.textDisplay ?? '',
      createdAt: new Date(c.snippet.publishedAt ?? Date.now()),
      url: `${watchUrl(videoId)}&lc=${encodeURIComponent(c.id)}`,
      likeCount: Number(c.snippet.likeCount ?? 0),
      post: { permalink: watchUrl(videoId) },
      extra: { authorChannelId: author },
    };
  }

  async function moderate(
    account: AccountCredentials,
    commentId: string,
    status: 'heldForReview' | 'published' | 'rejected',
    io: PlatformIO,
    banAuthor = false,
  ) {
    await ytRequest(io, {
      method: 'POST',
      url: `${api}/comments/setModerationStatus?id=${encodeURIComponent(commentId)}&moderationStatus=${status}${banAuthor ? '&banAuthor=true' : ''}`,
      token: token(account),
    });
  }

  return {
    // commentThreads.list, comments.insert and setModerationStatus: https://developers.google.com/youtube/v3/docs/comments
    scopes: () => ['https://www.googleapis.com/auth/youtube.force-ssl'],
    comments: {
      async reply(account, req, io) {
        const res = req.commentId
          ? await ytRequest(io, {
              method: 'POST',
              url: `${api}/comments?part=snippet`,
              token: token(account),
              json: { snippet: { parentId: req.commentId, textOriginal: req.text } },
              creates: true,
            })
          : await ytRequest(io, {
              method: 'POST',
              url: `${api}/commentThreads?part=snippet`,
              token: token(account),
              json: { snippet: { videoId: req.postId, topLevelComment: { snippet: { textOriginal: req.text } } } },
              creates: true,
            });
        const id = res.body?.id;
        if (!id) throw new PlatformError('unavailable', 'YouTube answered the comment without its id');
        return { commentId: String(id), extra: { authorChannelId: channelIdOf(account) } };
      },
      async delete(account, ref, io) {
        if (ref.extra.authorChannelId === channelIdOf(account)) {
          await ytRequest(io, {
            method: 'DELETE',
            url: `${api}/comments?id=${encodeURIComponent(ref.commentId)}`,
            token: token(account),
          });
        } else await moderate(account, ref.commentId, 'rejected', io);
      },
      async hide(account, ref, hidden, io) {
        await moderate(account, ref.commentId, hidden ? 'heldForReview' : 'published', io);
      },
      /** The moderation queue as the owner works it; `banAuthor` only with `rejected` (YouTube's rule). */
      async moderate(account, ref, req, io) {
        await moderate(account, ref.commentId, req.status, io, req.banAuthor);
      },
    },

    async sync(account, cursor, io) {
      const channelId = channelIdOf(account);
      const since =
        typeof cursor?.since === 'string' ? Date.parse(cursor.since) : io.now().getTime() - FIRST_LOOK_BACK_MS;
      const comments: InboundComment[] = [];
      let newest = typeof cursor?.since === 'string' ? cursor.since : null;
      let pageToken: string | undefined;
      for (let pages = 0; pages < MAX_PAGES; pages++) {
        const res = await ytRequest(io, {
          method: 'GET',
          url: `${api}/commentThreads?part=snippet,replies&allThreadsRelatedToChannelId=${encodeURIComponent(channelId)}&order=time&maxResults=100&textFormat=plainText${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`,
          token: token(account),
        });
        const threads = (res.body?.items ?? []) as YtThreadJson[];
        let older = false;
        for (const t of threads) {
          const top = t.snippet.topLevelComment;
          const videoId = t.snippet.videoId ?? top.snippet.videoId ?? '';
          let replies = t.replies?.comments ?? [];
          if ((t.snippet.totalReplyCount ?? 0) > replies.length) replies = await allReplies(account, top.id, io);
          const times = [top, ...replies].map((c) => c.snippet.updatedAt ?? c.snippet.publishedAt ?? '');
          const latest = times.reduce((a, b) => (b > a ? b : a), '');
          if (Date.parse(latest) < since) {
            older = true;
            break;
          }
          if (!newest || latest > newest) newest = latest;
          comments.push(toInbound(top, channelId, videoId), ...replies.map((r) => toInbound(r, channelId, videoId)));
        }
        pageToken = res.body?.nextPageToken;
        if (older || !pageToken) break;
      }
      return { comments, cursor: newest ? { since: newest } : undefined };
    },
  };

  /** Every reply of a thread, oldest first (`comments.list?parentId=`). */
  async function allReplies(account: AccountCredentials, parentId: string, io: PlatformIO): Promise<YtCommentJson[]> {
    const out: YtCommentJson[] = [];
    let pageToken: string | undefined;
    for (let pages = 0; pages < MAX_PAGES; pages++) {
      const res = await ytRequest(io, {
        method: 'GET',
        url: `${api}/comments?part=snippet&parentId=${encodeURIComponent(parentId)}&maxResults=100&textFormat=plainText${pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : ''}`,
        token: token(account),
      });
      out.push(...((res.body?.items ?? []) as YtCommentJson[]));
      pageToken = res.body?.nextPageToken;
      if (!pageToken) break;
    }
    return out;
  }
}
