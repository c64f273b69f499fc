import type { GraphCall, GraphHandler } from '../graph/index.js';
import { sendGraphFault } from '../graph/errors.js';
import { world, type GraphObject } from '../graph/world.js';

/*
 * A Page's recent items, as the lookup after an unknown outcome reads them, newest first:
 * - `GET /{page}/published_posts` (PagePost: feed posts and photo posts, not stories);
 * - `GET /{page}/videos?type=uploaded` and `GET /{page}/video_reels` (AdVideo);
 * - `GET /{page}/stories` (`post_id`, `status`, `creation_time` in epoch seconds, `media_type`, `url`:
 *   https://developers.facebook.com/docs/page-stories-api). Meta's specs as reduced here have no
 *   `Stories` node, so its answer is not held to one.
 * - `GET /{page}/tagged` (PagePost by others that tag the Page: its mentions; the inbox poll reads it,
 *   so it takes no `lookup` fault).
 * `since` / `until` (epoch seconds or a date) bound the creation time, as Graph's time-based paging does.
 * Fault op: `lookup`.
 */

function bounds(call: GraphCall): (createdAt: number) => boolean {
  const t = (v: unknown) =>
    v === undefined || v === '' ? null : /^\d+$/.test(String(v)) ? Number(v) * 1000 : Date.parse(String(v));
  const since = t(call.params.since);
  const until = t(call.params.until);
  return (at) => (since === null || at >= since) && (until === null || at <= until);
}

function listing(
  select: (o: GraphObject) => boolean,
  present: (o: GraphObject, call: GraphCall) => Record<string, unknown>,
): GraphHandler {
  return (call) => {
    const fault = call.state.faults.take('lookup');
    if (sendGraphFault(call.reply, fault)) return call.reply;
    const within = bounds(call);
    const limit = Math.min(100, Math.max(1, Number(call.params.limit ?? 25) || 25));
    const data = [...world(call.state).objects.values()]
      .filter((o) => o.ownerId === call.node.id && !o.deleted && select(o) && within(o.createdAt))
      .sort((a, b) => b.createdAt - a.createdAt)
      .slice(0, limit)
      .map((o) => present(o, call));
    return { data, paging: { cursors: { before: 'QVFIU', after: 'QVFIU' } } };
  };
}

const postUrl = (id: string) => {
  const [page, post] = id.split('_');
  return `https://www.facebook.com/${page}/posts/${post ?? page}`;
};

const post = (o: GraphObject) => ({
  id: o.id,
  message: (o.data.message as string) || undefined,
  created_time: new Date(o.createdAt).toISOString(),
  permalink_url: postUrl(o.id),
  is_published: true,
});

const video = (o: GraphObject) => ({
  id: o.id,
  description: (o.data.description as string) || undefined,
  title: (o.data.title as string | null) ?? undefined,
  created_time: new Date(o.createdAt).toISOString(),
  permalink_url:
    o.data.kind === 'reel'
      ? `https://www.facebook.com/reel/${o.id}`
      : `https://www.facebook.com/${o.ownerId}/videos/${o.id}`,
  published: o.data.published === true,
});

const story = (o: GraphObject) => ({
  post_id: o.id,
  status: 'PUBLISHED',
  creation_time: String(Math.floor(o.createdAt / 1000)),
  media_type: o.data.videoId ? 'video' : 'photo',
  media_id: String(o.data.videoId ?? o.data.photoId),
  url: `https://www.facebook.com/stories/${o.ownerId}/${o.id.split('_').pop()}`,
});

/**
 * `GET /{page}/tagged` (https://developers.facebook.com/docs/graph-api/reference/page/tagged): posts by
 * others that tag the Page, newest first, with their author (`from`).
 */
const tagged: GraphHandler = (call) => {
  const within = bounds(call);
  const limit = Math.min(100, Math.max(1, Number(call.params.limit ?? 25) || 25));
  const data = [...world(call.state).objects.values()]
    .filter(
      (o) =>
        o.type === 'PagePost' &&
        !o.deleted &&
        o.ownerId !== call.node.id &&
        ((o.data.tags as string[] | undefined) ?? []).includes(call.node.id) &&
        within(o.createdAt),
    )
    .sort((a, b) => b.createdAt - a.createdAt)
    .slice(0, limit)
    .map((o) => ({ ...post(o), from: o.data.from }));
  return { data, paging: { cursors: { before: 'QVFIU', after: 'QVFIU' } } };
};

export const LIST_HANDLERS: Record<string, GraphHandler> = {
  'GET Page tagged': tagged,
  // A rating's open_graph_story is no post of the Page's feed.
  'GET Page published_posts': listing((o) => o.type === 'PagePost' && !o.data.story && !o.data.rating, post),
  'GET Page videos': listing(
    (o) => o.type === 'AdVideo' && o.data.kind === 'video' && o.data.published === true,
    video,
  ),
  'GET Page video_reels': listing(
    (o) => o.type === 'AdVideo' && o.data.kind === 'reel' && o.data.published === true,
    video,
  ),
  'GET Page stories': listing((o) => o.type === 'PagePost' && o.data.story === true, story),
};
