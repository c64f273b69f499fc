import type http from 'node:http';
import type { Server } from '@atproto/xrpc-server';
import type { PdsReader, PostRecord } from './pds-reader.js';

type Auth = (lxm: string) => (ctx: { req: http.IncomingMessage }) => Promise<{ credentials: { did: string } }>;

const LIST = 'app.bsky.notification.listNotifications';

const repoOf = (uri: string | undefined) => (uri ? (/^at:\/\/([^/]+)\//.exec(uri)?.[1] ?? null) : null);

/** Why `post` (by someone else) notifies `me`: a reply in its thread, a quote, a mention; else null. */
function reasonFor(me: string, post: PostRecord): { reason: string; subject?: string } | null {
  const v = post.value;
  if (v.reply && (repoOf(v.reply.parent.uri) === me || repoOf(v.reply.root.uri) === me)) {
    return { reason: 'reply', subject: repoOf(v.reply.parent.uri) === me ? v.reply.parent.uri : v.reply.root.uri };
  }
  const quoted: string | undefined = v.embed?.record?.uri ?? v.embed?.record?.record?.uri;
  if (quoted && repoOf(quoted) === me) return { reason: 'quote', subject: quoted };
  const mentioned = (v.facets ?? []).some((f) =>
    (f.features ?? []).some((x) => x.$type === 'app.bsky.richtext.facet#mention' && x.did === me),
  );
  return mentioned ? { reason: 'mention' } : null;
}

/**
 * `app.bsky.notification.listNotifications`, newest first, computed from every repo on the PDS (a test
 * PDS holds a handful). The cursor is an offset; `reasons` filters; `isRead` follows `seenAt`.
 */
export function registerNotifications(server: Server, auth: Auth, reader: PdsReader): void {
  const seen = new Map<string, string>();
  server.method(LIST, {
    auth: auth(LIST),
    handler: async ({ auth: a, params }) => {
      const me = a.credentials.did as string;
      const items: Array<{ post: PostRecord; author: string; reason: string; subject?: string; at: string }> = [];
      for (const repo of await reader.repos()) {
        if (repo === me) continue;
        for (const post of await reader.posts(repo)) {
          const why = reasonFor(me, post);
          if (why) items.push({ post, author: repo, ...why, at: new Date(post.value.createdAt ?? 0).toISOString() });
        }
      }
      const reasons = params.reasons as string[] | undefined;
      const wanted = reasons?.length ? items.filter((i) => reasons.includes(i.reason)) : items;
      wanted.sort((x, y) => (x.at === y.at ? (x.post.uri < y.post.uri ? 1 : -1) : x.at < y.at ? 1 : -1));
      const offset = Number(params.cursor ?? 0) || 0;
      const limit = Number(params.limit ?? 50);
      const page = wanted.slice(offset, offset + limit);
      const seenAt = seen.get(me);
      const notifications = [];
      for (const i of page) {
        notifications.push({
          uri: i.post.uri,
          cid: i.post.cid,
          author: { did: i.author, handle: await reader.handle(i.author) },
          reason: i.reason,
          ...(i.subject ? { reasonSubject: i.subject } : {}),
          record: { $type: 'app.bsky.feed.post', ...i.post.value },
          isRead: Boolean(seenAt && i.at <= seenAt),
          indexedAt: i.at,
        });
      }
      return {
        encoding: 'application/json',
        body: {
          notifications,
          ...(offset + limit < wanted.length ? { cursor: String(offset + limit) } : {}),
          ...(seenAt ? { seenAt } : {}),
        },
      };
    },
  });
  server.method('app.bsky.notification.updateSeen', {
    auth: auth('app.bsky.notification.updateSeen'),
    handler: async ({ auth: a, input }) => {
      // xrpc-server has checked the input against the lexicon: seenAt is a datetime.
      seen.set(a.credentials.did, new Date((input?.body as { seenAt: string }).seenAt).toISOString());
    },
  });
}
