import type { FastifyInstance } from 'fastify';
import type { OAuthSim } from '../oauth.js';
import { hangUp, type SimulatorState } from '../types.js';
import { checkSchema } from './discovery.js';
import { partsOf } from './rules.js';
import {
  channelFor,
  channelOf,
  checked,
  etag,
  sendFault,
  ytError,
  ytStore,
  type YtChannel,
  type YtComment,
} from './store.js';

/*
 * Comments of the YouTube Data API v3 (https://developers.google.com/youtube/v3/docs/comments and
 * /commentThreads), every request and answer held to the discovery document:
 * - commentThreads.list `allThreadsRelatedToChannelId` or `videoId`, newest first (order=time), maxResults
 *   1..100 (default 20), pageToken; each thread carries up to 5 replies inline (`part=replies`);
 * - comments.list `parentId`: a thread's replies, oldest first, with pageToken;
 * - comments.insert: a reply (`snippet.parentId` names a top-level comment);
 * - comments.delete: only the comment's author may delete it (others get 403 forbidden; the video's owner
 *   moderates with setModerationStatus instead);
 * - comments.setModerationStatus: the video's owner sets `heldForReview`, `published` or `rejected`
 *   (`likelySpam` is not settable, as the parameter's description says); a held or rejected comment is
 *   gone from public lists.
 * `POST /_inbound {kind: "comment", account, postId, text, parentId?, author?: {id?, name?}}` is someone
 * commenting on one of the channel's videos (`postId` the video id) or replying to a comment.
 */

const MAX_TEXT = 10_000;

function commentResource(c: YtComment, store: ReturnType<typeof ytStore>) {
  const video = store.videos.get(c.videoId);
  return {
    kind: 'youtube#comment',
    etag: etag(`${c.id}-${c.moderationStatus}`),
    id: c.id,
    snippet: {
      channelId: video?.channelId ?? c.authorChannelId,
      videoId: c.videoId,
      textDisplay: c.text,
      textOriginal: c.text,
      ...(c.parentId ? { parentId: c.parentId } : {}),
      authorDisplayName: c.authorName,
      authorProfileImageUrl: `https://yt3.ggpht.com/${c.authorChannelId}=s48`,
      authorChannelUrl: `http://www.youtube.com/channel/${c.authorChannelId}`,
      authorChannelId: { value: c.authorChannelId },
      canRate: true,
      viewerRating: 'none',
      likeCount: 0,
      moderationStatus: c.moderationStatus,
      publishedAt: new Date(c.publishedAt).toISOString(),
      updatedAt: new Date(c.publishedAt).toISOString(),
    },
  };
}

const visible = (c: YtComment) => !c.deleted && c.moderationStatus === 'published';

function threadResource(top: YtComment, store: ReturnType<typeof ytStore>, parts: string[]) {
  const replies = store.comments
    .filter((c) => c.parentId === top.id && visible(c))
    .sort((a, b) => a.publishedAt - b.publishedAt);
  const video = store.videos.get(top.videoId);
  return {
    kind: 'youtube#commentThread',
    etag: etag(`t-${top.id}-${replies.length}`),
    id: top.id,
    ...(parts.includes('snippet')
      ? {
          snippet: {
            channelId: video?.channelId ?? top.authorChannelId,
            videoId: top.videoId,
            topLevelComment: commentResource(top, store),
            canReply: true,
            totalReplyCount: replies.length,
            isPublic: true,
          },
        }
      : {}),
    ...(parts.includes('replies') && replies.length
      ? { replies: { comments: replies.slice(-5).map((r) => commentResource(r, store)) } }
      : {}),
  };
}

/** pageToken: the offset of the page, as an opaque string. */
const tokenAt = (offset: number) => Buffer.from(`o:${offset}`).toString('base64url');
function offsetOf(token: string | undefined): number | null {
  if (!token) return 0;
  const m = /^o:(\d+)$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  return m ? Number(m[1]) : null;
}

function maxResultsOf(q: Record<string, string>): number | null {
  if (q.maxResults === undefined) return 20;
  const n = Number(q.maxResults);
  return Number.isInteger(n) && n >= 1 && n <= 100 ? n : null;
}

function newCommentId(seed: string): string {
  return `Ugz${etag(seed).slice(0, 20)}4AaABAg`;
}

export function registerComments(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  now: () => number,
): void {
  const store = () => ytStore(state);

  /** Records a comment in `_inspect` under its video (`extra.comments`). */
  function inspect(c: YtComment) {
    const inspected = state.posts.find((p) => p.id === c.videoId);
    // A video made outside Herald (externalYtVideo) is listed without a comments list: it gets one here.
    if (inspected) {
      inspected.extra ??= {};
      inspected.extra.comments ??= [];
    }
    if (inspected)
      (inspected.extra!.comments as unknown[]).push({
        id: c.id,
        text: c.text,
        channelId: c.authorChannelId,
        ...(c.parentId ? { parentId: c.parentId } : {}),
      });
  }
  function inspectStatus(c: YtComment) {
    const inspected = state.posts.find((p) => p.id === c.videoId);
    const entry = (inspected?.extra?.comments as Array<Record<string, unknown>> | undefined)?.find(
      (e) => e.id === c.id,
    );
    if (entry) Object.assign(entry, c.deleted ? { deleted: true } : { moderationStatus: c.moderationStatus });
  }

  app.get('/youtube/v3/commentThreads', async (request, reply) => {
    const channel = channelFor(request, reply, oauth, ['commentThreads', 'list']);
    if (!channel) return reply;
    const q = request.query as Record<string, string>;
    const parts = partsOf(q);
    if (!parts.length)
      return ytError(reply, 400, 'required', 'Required parameter: part', { domain: 'global', location: 'part' });
    const bad = parts.find((p) => !['id', 'snippet', 'replies'].includes(p));
    if (bad) return ytError(reply, 400, 'unknownPart', `'${bad}'`, { location: 'part' });
    const filters = ['allThreadsRelatedToChannelId', 'videoId', 'id', 'channelId', 'postId'].filter(
      (f) => q[f] !== undefined,
    );
    if (filters.length !== 1)
      return ytError(
        reply,
        400,
        'missingRequiredParameter',
        'No filter selected. Expected one of: allThreadsRelatedToChannelId, videoId, id, channelId, postId',
        { location: 'parameters.' },
      );
    if (q.order !== undefined && !['time', 'relevance'].includes(q.order))
      return ytError(reply, 400, 'invalidParameter', `Invalid value for parameter order: ${q.order}`, {
        location: 'order',
      });
    const max = maxResultsOf(q);
    if (max === null)
      return ytError(reply, 400, 'invalidParameter', 'Invalid value for parameter maxResults (1 to 100)', {
        location: 'maxResults',
      });
    const offset = offsetOf(q.pageToken);
    if (offset === null)
      return ytError(reply, 400, 'invalidPageToken', 'The request specifies an invalid page token.', {
        location: 'pageToken',
      });
    const fault = state.faults.take('comment');
    if (
      sendFault(reply, fault, {
        reason: 'forbidden',
        message: 'The comment thread could not be retrieved due to insufficient permissions.',
      })
    )
      return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    const s = store();
    let tops = s.comments.filter((c) => !c.parentId && visible(c));
    if (q.allThreadsRelatedToChannelId !== undefined)
      tops = tops.filter((c) => s.videos.get(c.videoId)?.channelId === q.allThreadsRelatedToChannelId);
    else if (q.videoId !== undefined) {
      const video = s.videos.get(q.videoId);
      if (!video || video.deleted)
        return ytError(
          reply,
          404,
          'videoNotFound',
          'The video identified by the videoId parameter could not be found.',
          { location: 'videoId' },
        );
      tops = tops.filter((c) => c.videoId === q.videoId);
    } else if (q.id !== undefined) tops = tops.filter((c) => q.id.split(',').includes(c.id));
    else tops = [];
    // order=time: the newest activity (the thread or its latest reply) first.
    const latest = (t: YtComment) =>
      Math.max(t.publishedAt, ...s.comments.filter((c) => c.parentId === t.id && visible(c)).map((c) => c.publishedAt));
    tops.sort((a, b) => latest(b) - latest(a) || (a.id < b.id ? 1 : -1));
    const page = tops.slice(offset, offset + max);
    const more = offset + max < tops.length;
    return checked('CommentThreadListResponse', {
      kind: 'youtube#commentThreadListResponse',
      etag: etag(`threads-${offset}-${page.length}`),
      ...(more ? { nextPageToken: tokenAt(offset + max) } : {}),
      pageInfo: { totalResults: tops.length, resultsPerPage: max },
      items: page.map((t) => threadResource(t, s, parts)),
    });
  });

  app.get('/youtube/v3/comments', async (request, reply) => {
    const channel = channelFor(request, reply, oauth, ['comments', 'list']);
    if (!channel) return reply;
    const q = request.query as Record<string, string>;
    const parts = partsOf(q);
    if (!parts.length)
      return ytError(reply, 400, 'required', 'Required parameter: part', { domain: 'global', location: 'part' });
    if ((q.parentId === undefined) === (q.id === undefined))
      return ytError(reply, 400, 'missingRequiredParameter', 'No filter selected. Expected one of: id, parentId', {
        location: 'parameters.',
      });
    const max = maxResultsOf(q);
    if (max === null)
      return ytError(reply, 400, 'invalidParameter', 'Invalid value for parameter maxResults (1 to 100)', {
        location: 'maxResults',
      });
    const offset = offsetOf(q.pageToken);
    if (offset === null)
      return ytError(reply, 400, 'invalidPageToken', 'The request specifies an invalid page token.', {
        location: 'pageToken',
      });
    const s = store();
    const all = s.comments
      .filter((c) =>
        q.parentId !== undefined
          ? c.parentId === q.parentId && visible(c)
          : q.id.split(',').includes(c.id) && !c.deleted,
      )
      .sort((a, b) => a.publishedAt - b.publishedAt);
    const page = all.slice(offset, offset + max);
    return checked('CommentListResponse', {
      kind: 'youtube#commentListResponse',
      etag: etag(`comments-${offset}-${page.length}`),
      ...(offset + max < all.length ? { nextPageToken: tokenAt(offset + max) } : {}),
      pageInfo: { totalResults: all.length, resultsPerPage: max },
      items: page.map((c) => commentResource(c, s)),
    });
  });

  app.post('/youtube/v3/comments', async (request, reply) => {
    const channel = channelFor(request, reply, oauth, ['comments', 'insert']);
    if (!channel) return reply;
    const parts = partsOf(request.query as Record<string, string>);
    if (!parts.length)
      return ytError(reply, 400, 'required', 'Required parameter: part', { domain: 'global', location: 'part' });
    const problems = checkSchema('Comment', request.body ?? null);
    if (problems.length) return ytError(reply, 400, 'invalid', problems[0].message, { domain: 'global' });
    const body = request.body as { snippet?: { parentId?: string; textOriginal?: string } };
    const text = body.snippet?.textOriginal;
    // https://developers.google.com/youtube/v3/docs/comments/insert#errors
    if (!body.snippet?.parentId)
      return ytError(
        reply,
        400,
        'parentIdMissing',
        'No parent ID was specified for the comment. Use commentThreads.insert to create a top-level comment.',
      );
    if (!text || text.length > MAX_TEXT)
      return ytError(reply, 400, 'invalidCommentMetadata', 'The request metadata is invalid.');
    const parent = store().comments.find((c) => c.id === body.snippet!.parentId && !c.deleted);
    if (!parent)
      return ytError(reply, 404, 'parentCommentNotFound', 'The specified parent comment could not be found.', {
        location: 'body.snippet.parentId',
      });
    if (parent.parentId)
      return ytError(
        reply,
        400,
        'operationNotSupported',
        'The API user is not able to insert a comment in reply to the specified comment.',
      );
    const fault = state.faults.take('comment');
    if (sendFault(reply, fault, { reason: 'invalidCommentMetadata', message: 'The request metadata is invalid.' }))
      return reply;
    const c = addComment(state, { videoId: parent.videoId, parentId: parent.id, text, author: channel, at: now() });
    inspect(c);
    if (fault === 'ambiguous') return hangUp(reply);
    return checked('Comment', commentResource(c, store()));
  });

  app.delete('/youtube/v3/comments', async (request, reply) => {
    const channel = channelFor(request, reply, oauth, ['comments', 'delete']);
    if (!channel) return reply;
    const id = (request.query as Record<string, string>).id;
    if (!id) return ytError(reply, 400, 'required', 'Required parameter: id', { domain: 'global', location: 'id' });
    const c = store().comments.find((x) => x.id === id && !x.deleted);
    if (!c) return ytError(reply, 404, 'commentNotFound', 'The comment could not be found.', { location: 'id' });
    if (c.authorChannelId !== channel.id)
      return ytError(
        reply,
        403,
        'forbidden',
        'The comment could not be deleted due to insufficient permissions. The request might not be properly authorized.',
      );
    const fault = state.faults.take('delete');
    if (sendFault(reply, fault, { reason: 'forbidden', message: 'The comment could not be deleted.' })) return reply;
    c.deleted = true;
    inspectStatus(c);
    if (fault === 'ambiguous') return hangUp(reply);
    return reply.status(204).send();
  });

  app.post('/youtube/v3/comments/setModerationStatus', async (request, reply) => {
    const channel = channelFor(request, reply, oauth, ['comments', 'setModerationStatus']);
    if (!channel) return reply;
    const q = request.query as Record<string, string>;
    if (!q.id) return ytError(reply, 400, 'required', 'Required parameter: id', { domain: 'global', location: 'id' });
    if (!q.moderationStatus)
      return ytError(reply, 400, 'required', 'Required parameter: moderationStatus', {
        domain: 'global',
        location: 'moderationStatus',
      });
    if (!['heldForReview', 'published', 'rejected'].includes(q.moderationStatus)) {
      return ytError(
        reply,
        400,
        'invalidModerationStatus',
        'The moderationStatus parameter specifies an invalid value.',
        { location: 'moderationStatus' },
      );
    }
    if (q.banAuthor === 'true' && q.moderationStatus !== 'rejected')
      return ytError(
        reply,
        400,
        'banWithoutReject',
        'The banAuthor parameter can only be used if the moderationStatus parameter value is rejected.',
        { location: 'banAuthor' },
      );
    const ids = q.id.split(',');
    const s = store();
    const found = ids.map((id) => s.comments.find((c) => c.id === id && !c.deleted));
    if (found.some((c) => !c))
      return ytError(reply, 404, 'commentNotFound', 'One or more comments could not be found.', { location: 'id' });
    if (found.some((c) => s.videos.get(c!.videoId)?.channelId !== channel.id)) {
      return ytError(
        reply,
        403,
        'forbidden',
        'The moderation status of one or more comments cannot be set due to insufficient permissions.',
      );
    }
    const fault = state.faults.take('comment');
    if (
      sendFault(reply, fault, {
        reason: 'processingFailure',
        message: 'The API server failed to successfully process the request.',
      })
    )
      return reply;
    for (const c of found) {
      c!.moderationStatus = q.moderationStatus as YtComment['moderationStatus'];
      inspectStatus(c!);
      if (q.banAuthor === 'true') bannedAuthors(state, channel.id).add(c!.authorChannelId);
    }
    if (fault === 'ambiguous') return hangUp(reply);
    return reply.status(204).send();
  });

  app.post('/_inbound', async (request, reply) => {
    const b = (request.body ?? {}) as {
      kind?: string;
      account?: string;
      postId?: string;
      text?: string;
      parentId?: string;
      author?: { id?: string; name?: string };
    };
    if (b.kind !== 'comment')
      return reply.status(400).send({
        error: `YouTube has no ${b.kind ?? 'such'} items Herald reads: only kind "comment" (a comment under one of the channel's videos)`,
      });
    if (!b.account || !b.postId || !b.text)
      return reply
        .status(400)
        .send({ error: 'account (the channel id or @handle), postId (the video id) and text are required' });
    const s = store();
    // The channel id, or its handle with or without the @ (Herald shows the handle without it).
    const handle = `@${b.account.replace(/^@/, '').toLowerCase()}`;
    const channel = oauth
      .users()
      .map(channelOf)
      .find((c) => c.id === b.account || c.customUrl === handle);
    if (!channel)
      return reply
        .status(400)
        .send({ error: `unknown account ${JSON.stringify(b.account)}: no channel with that id or handle` });
    const video = s.videos.get(b.postId);
    if (!video || video.deleted || video.channelId !== channel.id) {
      return reply.status(400).send({ error: `no video ${b.postId} of the channel ${b.account}` });
    }
    let parentId: string | null = null;
    if (b.parentId) {
      const parent = s.comments.find((c) => c.id === b.parentId && c.videoId === video.id && !c.parentId && !c.deleted);
      if (!parent)
        return reply.status(400).send({ error: `no top-level comment ${b.parentId} under the video ${video.id}` });
      parentId = parent.id;
    }
    const authorId = b.author?.id ?? `UCfan${etag(b.author?.name ?? 'Sandbox Viewer').slice(0, 17)}`;
    const c = addComment(state, {
      videoId: video.id,
      parentId,
      text: b.text,
      author: { id: authorId, customUrl: b.author?.name ?? 'Sandbox Viewer' },
      at: now(),
    });
    inspect(c);
    return { ok: true, id: c.id, postId: video.id, parentId };
  });
}

/** Stores a comment (top-level when `parentId` is null) by `author` at `at` (ms). */
export function addComment(
  state: SimulatorState,
  c: {
    videoId: string;
    parentId: string | null;
    text: string;
    author: Pick<YtChannel, 'id' | 'customUrl'>;
    at: number;
  },
): YtComment {
  const s = ytStore(state);
  const comment: YtComment = {
    id: c.parentId
      ? `${c.parentId}.${etag(`${s.comments.length}-${c.text}`).slice(0, 22)}`
      : newCommentId(`${c.videoId}-${s.comments.length}-${c.text}`),
    videoId: c.videoId,
    parentId: c.parentId,
    text: c.text,
    authorChannelId: c.author.id,
    authorName: c.author.customUrl,
    publishedAt: c.at,
    moderationStatus: 'published',
    deleted: false,
  };
  s.comments.push(comment);
  return comment;
}

/** Authors a channel banned with `banAuthor=true` (their later comments are rejected on YouTube). */
export function bannedAuthors(state: SimulatorState, channelId: string): Set<string> {
  let m = state.data.get('yt-banned') as Map<string, Set<string>> | undefined;
  if (!m) {
    m = new Map();
    state.data.set('yt-banned', m);
  }
  let set = m.get(channelId);
  if (!set) {
    set = new Set();
    m.set(channelId, set);
  }
  return set;
}
