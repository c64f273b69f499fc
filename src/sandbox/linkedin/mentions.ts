import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FaultKind } from '../faults.js';
import type { OAuthSim, OAuthUser } from '../oauth.js';
import { hangUp, type SimulatorState } from '../types.js';
import { canActAs, liError, liStore, nextLiId, type LiPost, type LiStore } from './store.js';

type Rest = (request: FastifyRequest, reply: FastifyReply) => OAuthUser | null;
type SendFault = (reply: FastifyReply, fault: FaultKind | null, rejection: string) => boolean;

/*
 * Mentions of a company page, the way an app reads them without a webhook: the pull side of LinkedIn's
 * Organization Social Action Notifications, and the Posts API's read of one post.
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/organization-social-action-notifications
 * - `GET /rest/organizationalEntityNotifications?q=criteria&organizationalEntity=<org urn>
 *   &actions=List(SHARE_MENTION,...)&timeRange=(start:<ms>,end:<ms>)&start&count`: the page's
 *   notifications, kept 60 days. Needs `rw_organization_admin` and the ADMINISTRATOR role on the page
 *   (403 ACCESS_DENIED otherwise). The actions the page documents are LIKE, COMMENT, SHARE,
 *   SHARE_MENTION, ADMIN_COMMENT, COMMENT_EDIT and COMMENT_DELETE; any other is a 400. Elements carry
 *   `notificationId`, `organizationalEntity`, `action`, `sourcePost` and `lastModifiedAt`.
 *   NOTE: the docs give neither the finder's order nor its largest `count`: here newest first and at
 *   most 100, as LinkedIn's other finders; nor the shape of `decoratedSourcePost`, which is left out.
 * - `GET /rest/posts/{urn}`: one live post, for a token with `r_organization_social` or
 *   `r_member_social` (https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api).
 * This simulator records SHARE_MENTION only: a post (published here, or injected by `_inbound`
 * `{kind: "mention"}`) whose commentary mentions a page other than its author.
 */

const ACTIONS = ['LIKE', 'COMMENT', 'SHARE', 'SHARE_MENTION', 'ADMIN_COMMENT', 'COMMENT_EDIT', 'COMMENT_DELETE'];
const RETENTION_MS = 60 * 86_400_000;
const ORG_MENTION = /@\[(?:\\.|[^\]])+\]\((urn:li:organization:\d+)\)/g;

/** Records a SHARE_MENTION for each page the post's commentary mentions, other than its author. */
export function notifyMentions(store: LiStore, post: LiPost): void {
  const orgs = new Set([...post.commentary.matchAll(ORG_MENTION)].map((m) => m[1]!));
  for (const org of orgs) {
    if (org === post.author || !store.organizations.has(org.slice('urn:li:organization:'.length))) continue;
    store.notifications.push({
      notificationId: 900_000_000 + store.notifications.length + 1,
      organizationalEntity: org,
      action: 'SHARE_MENTION',
      sourcePost: post.urn,
      lastModifiedAt: post.createdAt,
    });
  }
}

/**
 * `_inbound {kind: "mention", account, text, from?}` for a page: a public post by `from` whose
 * commentary mentions the page (`@[Page name](urn)` first, unless the text has it already). Answers
 * the post, or the 400's sentence.
 */
export function addMentionPost(store: LiStore, org: string, from: string, text: string, at: number): LiPost | string {
  const page = store.organizations.get(org.slice('urn:li:organization:'.length));
  if (!page) return `LinkedIn reports mentions of company pages only: ${org} is a member`;
  const tagged = text.includes(`](${org})`);
  // Little text: markup characters in plain text are escaped, as a post's commentary keeps them.
  const plain = (s: string) => s.replace(/[\\|{}@[\]()<>#*_~]/g, (c) => `\\${c}`);
  const commentary = tagged ? text : `@[${page.localizedName}](${org}) ${plain(text)}`;
  if (commentary.replace(/\\(.)/g, '$1').length > 3000)
    return 'text is too long: a LinkedIn post (commentary) takes at most 3000 characters';
  const urn = `urn:li:share:${nextLiId(store)}`;
  const post: LiPost = {
    urn,
    author: from,
    commentary,
    createdAt: at,
    body: {
      author: from,
      commentary,
      visibility: 'PUBLIC',
      distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
      lifecycleState: 'PUBLISHED',
      isReshareDisabledByAuthor: false,
    },
    deleted: false,
  };
  store.posts.set(urn, post);
  notifyMentions(store, post);
  return post;
}

export function registerLinkedInMentions(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  rest: Rest,
  sendFault: SendFault,
  now: () => Date,
): void {
  const granted = (request: FastifyRequest, ...scopes: string[]) => {
    const have = oauth.scopesFor(request.headers.authorization) ?? [];
    return scopes.some((s) => have.includes(s));
  };
  const illegal = (reply: FastifyReply, message: string) => liError(reply, 400, message, { code: 'ILLEGAL_ARGUMENT' });

  app.get('/rest/organizationalEntityNotifications', async (request, reply) => {
    const user = rest(request, reply);
    if (!user) return reply;
    const q = request.query as Record<string, string | string[] | undefined>;
    const one = (name: string) => (typeof q[name] === 'string' ? (q[name] as string) : undefined);
    if (one('q') !== 'criteria') return illegal(reply, 'q must be criteria');
    const org = one('organizationalEntity');
    if (!org || !/^urn:li:organization:\d+$/.test(org))
      return illegal(reply, 'organizationalEntity must be an organization URN (urn:li:organization:{id})');
    const list = /^List\(([A-Z_,]+)\)$/.exec(one('actions') ?? '');
    const actions = list ? list[1]!.split(',') : [];
    const unknown = actions.find((a) => !ACTIONS.includes(a));
    if (!list || unknown !== undefined || actions.some((a) => !a))
      return illegal(
        reply,
        `actions must be List(...) of ${ACTIONS.join(', ')}${unknown ? `: ${unknown} is not one` : ''}`,
      );
    const nowMs = now().getTime();
    let range = { start: nowMs - RETENTION_MS, end: nowMs };
    if (q.timeRange !== undefined) {
      const m = /^\(start:(\d+),end:(\d+)\)$/.exec(one('timeRange') ?? '');
      if (!m || Number(m[1]) > Number(m[2]))
        return illegal(reply, 'timeRange must be (start:<epoch ms>,end:<epoch ms>) with start not after end');
      range = { start: Number(m[1]), end: Number(m[2]) };
    }
    const paging = (name: string, max: number) => {
      const v = one(name);
      return v === undefined ? null : /^\d+$/.test(v) && Number(v) <= max ? Number(v) : NaN;
    };
    const start = paging('start', Number.MAX_SAFE_INTEGER) ?? 0;
    const count = paging('count', 100) ?? 10;
    if (Number.isNaN(start) || Number.isNaN(count))
      return illegal(reply, 'start must be a non-negative integer and count 0 to 100');
    if (!granted(request, 'rw_organization_admin') || !canActAs(liStore(state), user, org))
      return liError(reply, 403, `Not enough permissions to access: notifications of ${org} (rw_organization_admin)`, {
        code: 'ACCESS_DENIED',
        serviceErrorCode: 100,
      });
    const fault = state.faults.take('comment');
    if (sendFault(reply, fault, 'The request was refused')) return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    // Kept 60 days: older notifications are gone whatever the range asks.
    const from = Math.max(range.start, nowMs - RETENTION_MS);
    const all = liStore(state)
      .notifications.filter(
        (n) =>
          n.organizationalEntity === org &&
          actions.includes(n.action) &&
          n.lastModifiedAt >= from &&
          n.lastModifiedAt <= range.end,
      )
      .sort((a, b) => b.lastModifiedAt - a.lastModifiedAt);
    return {
      paging: { start, count, total: all.length, links: [] },
      elements: all.slice(start, start + count).map((n) => ({ ...n })),
    };
  });

  app.get<{ Params: { urn: string } }>('/rest/posts/:urn', async (request, reply) => {
    const user = rest(request, reply);
    if (!user) return reply;
    const post = liStore(state).posts.get(request.params.urn);
    if (!post || post.deleted) return liError(reply, 404, `${request.params.urn} not found`);
    if (!granted(request, 'r_organization_social', 'r_member_social') && !canActAs(liStore(state), user, post.author))
      return liError(reply, 403, `Not enough permissions to access: ${post.urn}`, { code: 'ACCESS_DENIED' });
    const fault = state.faults.take('lookup');
    if (sendFault(reply, fault, 'The request was refused')) return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    return {
      ...post.body,
      id: post.urn,
      createdAt: post.createdAt,
      publishedAt: post.createdAt,
      lastModifiedAt: post.createdAt,
    };
  });
}
