import type { FastifyInstance } from 'fastify';
import type { GraphCall, GraphHandler } from '../graph/index.js';
import { graphError } from '../graph/errors.js';
import { stableId, world } from '../graph/world.js';
import type { SimulatorState } from '../types.js';

/*
 * A Page post's reactions (https://developers.facebook.com/docs/graph-api/reference/post/reactions/):
 * `GET /{post-id}/reactions` with the Page token lists who reacted and how (`type`, one of Graph's
 * reaction types), `?type=LOVE` only those, paged by `limit` and the `after` cursor (`paging.next` while
 * more follow). `POST /_reactions {postId, reactions: {LIKE: 3, LOVE: 1, ...}}` (test control) sets the
 * reactions a post has; a post nobody reacted to lists none.
 */

const REACTION_TYPES = ['LIKE', 'LOVE', 'WOW', 'HAHA', 'SAD', 'ANGRY', 'THANKFUL', 'PRIDE', 'CARE'] as const;

interface Reaction {
  id: string;
  name: string;
  type: string;
}

function reactions(state: SimulatorState): Map<string, Reaction[]> {
  let m = state.data.get('fb-reactions') as Map<string, Reaction[]> | undefined;
  if (!m) {
    m = new Map();
    state.data.set('fb-reactions', m);
  }
  return m;
}

const list: GraphHandler = (call: GraphCall) => {
  const o = call.node.object!;
  if (!(call.token.kind === 'page' && call.token.pageId === o.ownerId)) {
    return graphError(call.reply, 400, {
      message: '(#200) Permissions error: use the Page access token of the Page that owns this object',
      code: 200,
    });
  }
  const type = typeof call.params.type === 'string' ? call.params.type : null;
  const all = (reactions(call.state).get(o.id) ?? []).filter((r) => !type || type === 'NONE' || r.type === type);
  const limit = Math.min(Math.max(Number(call.params.limit ?? 25) || 25, 1), 100);
  const start =
    typeof call.params.after === 'string'
      ? Number(Buffer.from(call.params.after, 'base64url').toString('utf8')) || 0
      : 0;
  const page = all.slice(start, start + limit);
  const cursor = (n: number) => Buffer.from(String(n), 'utf8').toString('base64url');
  const next = start + limit < all.length ? cursor(start + limit) : null;
  const base = `${call.request.protocol}://${call.request.headers.host}${call.request.url.split('?')[0]}`;
  return {
    data: page,
    paging: {
      cursors: { before: cursor(start), after: cursor(start + page.length) },
      ...(next
        ? { next: `${base}?${new URLSearchParams({ limit: String(limit), after: next, ...(type ? { type } : {}) })}` }
        : {}),
    },
  };
};

export const REACTION_HANDLERS: Record<string, GraphHandler> = {
  'GET PagePost reactions': list,
};

export function registerReactionsControl(app: FastifyInstance, state: SimulatorState): void {
  app.post('/_reactions', async (request, reply) => {
    const b = (request.body ?? {}) as { postId?: unknown; reactions?: Record<string, unknown> };
    const post = typeof b.postId === 'string' ? world(state).objects.get(b.postId) : undefined;
    if (!post || post.type !== 'PagePost')
      return reply.status(400).send({ error: 'postId must be a Page post the simulator knows' });
    const counts = Object.entries(b.reactions ?? {});
    const bad = counts.find(
      ([t, n]) =>
        !(REACTION_TYPES as readonly string[]).includes(t) ||
        !Number.isInteger(n) ||
        (n as number) < 0 ||
        (n as number) > 10_000,
    );
    if (bad)
      return reply
        .status(400)
        .send({ error: `reactions maps a type (${REACTION_TYPES.join(', ')}) to a count of 0-10000 (got ${bad[0]})` });
    const list: Reaction[] = counts.flatMap(([type, n]) =>
      Array.from({ length: n as number }, (_, i) => ({
        id: stableId(`${post.id}:${type}:${i}`),
        name: `Sandbox fan ${type.toLowerCase()} ${i + 1}`,
        type,
      })),
    );
    reactions(state).set(post.id, list);
    return { postId: post.id, total: list.length };
  });
}
