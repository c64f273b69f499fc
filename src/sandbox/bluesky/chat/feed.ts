import type http from 'node:http';
import { InvalidRequestError, type Server } from '@atproto/xrpc-server';
import type { PdsReader } from './pds-reader.js';

type Auth = (lxm: string) => (ctx: { req: http.IncomingMessage }) => Promise<{ credentials: { did: string } }>;

/*
 * The app view's feed and profile reads Herald's analytics use, computed from the PDS's repos as the real
 * app view indexes them: `app.bsky.feed.getAuthorFeed` (newest first by createdAt, `filter`, an offset
 * cursor), `app.bsky.feed.getPosts` (PostViews with likeCount, repostCount, replyCount and quoteCount
 * counted from every repo's like, repost and post records) and `app.bsky.actor.getProfile`
 * (followersCount from follow records). Parameters and answers are held to the official lexicons by
 * xrpc-server (getPosts' 25 URIs, getAuthorFeed's limit 1-100 among them).
 */

const atRepo = (uri: string) => /^at:\/\/([^/]+)\//.exec(uri)?.[1] ?? '';

export function registerFeed(server: Server, auth: Auth, reader: PdsReader): void {
  /** Every record of `collection` on the PDS. */
  const everywhere = async (collection: string) =>
    (await Promise.all((await reader.repos()).map((r) => reader.records(r, collection)))).flat();

  async function postViews(uris: string[]) {
    const [posts, likes, reposts] = await Promise.all([
      everywhere('app.bsky.feed.post'),
      everywhere('app.bsky.feed.like'),
      everywhere('app.bsky.feed.repost'),
    ]);
    const byUri = new Map(posts.map((p) => [p.uri, p]));
    const views = [];
    for (const uri of uris) {
      const p = byUri.get(uri);
      if (!p) continue;
      const author = atRepo(uri);
      views.push({
        uri,
        cid: p.cid,
        author: { did: author, handle: await reader.handle(author) },
        record: { $type: 'app.bsky.feed.post', ...p.value },
        replyCount: posts.filter((x) => x.value.reply?.parent?.uri === uri).length,
        repostCount: reposts.filter((x) => typeof x.value.subject === 'object' && x.value.subject.uri === uri).length,
        likeCount: likes.filter((x) => typeof x.value.subject === 'object' && x.value.subject.uri === uri).length,
        quoteCount: posts.filter((x) => (x.value.embed?.record?.uri ?? x.value.embed?.record?.record?.uri) === uri)
          .length,
        indexedAt: new Date(p.value.createdAt ?? 0).toISOString(),
      });
    }
    return views;
  }

  server.method('app.bsky.feed.getPosts', {
    auth: auth('app.bsky.feed.getPosts'),
    handler: async ({ params }) => ({
      encoding: 'application/json',
      body: { posts: await postViews(params.uris as string[]) },
    }),
  });

  server.method('app.bsky.feed.getAuthorFeed', {
    auth: auth('app.bsky.feed.getAuthorFeed'),
    handler: async ({ params }) => {
      const actor = String(params.actor);
      const did = actor.startsWith('did:')
        ? actor
        : (
            await Promise.all((await reader.repos()).map(async (r) => ((await reader.handle(r)) === actor ? r : null)))
          ).find(Boolean);
      if (!did) throw new InvalidRequestError('Profile not found', 'NotFound');
      const filter = String(params.filter ?? 'posts_with_replies');
      const own = (await reader.posts(did))
        .filter((p) => !(filter === 'posts_no_replies' && p.value.reply))
        .filter((p) => !(filter === 'posts_with_media' && !p.value.embed?.images && !p.value.embed?.media))
        .sort(
          (a, b) =>
            String(b.value.createdAt ?? '').localeCompare(String(a.value.createdAt ?? '')) || (a.uri < b.uri ? 1 : -1),
        );
      const offset = Number(params.cursor ?? 0) || 0;
      const limit = Number(params.limit ?? 50);
      const page = own.slice(offset, offset + limit);
      const views = await postViews(page.map((p) => p.uri));
      return {
        encoding: 'application/json',
        body: {
          feed: views.map((post) => ({ post })),
          ...(offset + limit < own.length ? { cursor: String(offset + limit) } : {}),
        },
      };
    },
  });

  server.method('app.bsky.actor.getProfile', {
    auth: auth('app.bsky.actor.getProfile'),
    handler: async ({ params }) => {
      const did = String(params.actor);
      if (!(await reader.repos()).includes(did)) throw new InvalidRequestError('Profile not found', 'NotFound');
      const follows = await everywhere('app.bsky.graph.follow');
      const posts = await reader.posts(did);
      return {
        encoding: 'application/json',
        body: {
          did,
          handle: await reader.handle(did),
          followersCount: follows.filter((f) => f.value.subject === did).length,
          followsCount: 0,
          postsCount: posts.length,
        },
      };
    },
  });
}
