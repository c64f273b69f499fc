import type { LimitRule } from '../rate-limits.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formBody, type OAuthSim } from '../oauth.js';
import type { SimulatorState } from '../types.js';
import { findSubreddit, rdStore } from './store.js';
import { apiUser, httpError, JSON_TYPE, submitErrors } from './wire.js';

/*
 * Subreddit rules and post flair on loopback:
 * - GET /r/{sr}/about/rules (https://www.reddit.com/dev/api#GET_r_{subreddit}_about_rules): the
 *   subreddit's rules, Reddit's site-wide rules and the report flow.
 * - POST /r/{sr}/api/selectflair (https://www.reddit.com/dev/api#POST_api_selectflair), scope `flair`:
 *   `link` (a post fullname), `flair_template_id`, optional `text` (only for an editable template).
 *   Refusals come as HTTP 200 `{json: {errors: [[CODE, message, field]]}}`. A user sets flair on their
 *   own posts only (another's needs moderator rights). `_inspect` shows the new `flairId`/`flairText`.
 * - GET /_votes (test control): every vote `POST /api/vote` recorded, as `{user, thing, dir}`.
 */

/** The sandbox subreddits' rules (`test` has two, `flairrequired` one); other subreddits have none. */
const RULES: Record<
  string,
  { kind: 'link' | 'comment' | 'all'; short_name: string; description: string; violation_reason: string }[]
> = {
  test: [
    {
      kind: 'link',
      short_name: 'Test posts only',
      description: 'Posts here must be tests of a client or bot.',
      violation_reason: 'Not a test post',
    },
    {
      kind: 'all',
      short_name: 'Be civil',
      description: 'No harassment or personal attacks.',
      violation_reason: 'Incivility',
    },
  ],
  flairrequired: [
    {
      kind: 'link',
      short_name: 'Flair your post',
      description: 'Every post needs one of the flairs.',
      violation_reason: 'Missing flair',
    },
  ],
};

/** Reddit's content policy, as `site_rules` lists it. */
const SITE_RULES = ['Spam', 'Personal and confidential information', 'Threatening, harassing, or inciting violence'];

/** When the sandbox subreddits' rules were created (a fixed moment, so answers are stable). */
const RULES_CREATED_UTC = 1_600_000_000;

export function registerRedditExtras(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  limit: LimitRule,
  now: () => Date,
): void {
  const store = () => rdStore(state);
  const user = (request: FastifyRequest, reply: FastifyReply, scope?: string) =>
    apiUser(state, oauth, request, reply, limit, now().getTime(), scope);

  for (const path of ['/r/:sr/about/rules', '/r/:sr/about/rules/', '/r/:sr/about/rules.json']) {
    app.get<{ Params: { sr: string } }>(path, async (request, reply) => {
      if (!user(request, reply, 'read')) return reply;
      const sr = findSubreddit(store(), request.params.sr);
      if (!sr) return httpError(reply, 404);
      if (sr.type === 'private') return httpError(reply, 403, { reason: 'private' });
      const rules = (RULES[sr.name] ?? []).map((r, priority) => ({
        ...r,
        description_html: `<!-- SC_OFF --><div class="md"><p>${r.description}</p></div><!-- SC_ON -->`,
        created_utc: RULES_CREATED_UTC + priority,
        priority,
      }));
      return reply.type(JSON_TYPE).send({
        rules,
        site_rules: SITE_RULES,
        site_rules_flow: SITE_RULES.map((reasonText) => ({ reasonTextToShow: reasonText, reasonText })),
      });
    });
  }

  const selectFlair = async (request: FastifyRequest<{ Params: { sr?: string } }>, reply: FastifyReply) => {
    const u = user(request, reply, 'flair');
    if (!u) return reply;
    const body = formBody(request);
    const link = String(body.link ?? '');
    const post = link.startsWith('t3_') ? store().posts.get(link.slice(3)) : undefined;
    if (!post || post.deleted || (request.params.sr && post.subreddit !== findSubreddit(store(), request.params.sr))) {
      return submitErrors(reply, [['BAD_FLAIR_TARGET', 'not a valid flair target', 'link']]);
    }
    if (post.authorId !== u.id) return httpError(reply, 403);
    const template = post.subreddit.flairs.find((f) => f.id === body.flair_template_id);
    if (!template)
      return submitErrors(reply, [
        ['BAD_FLAIR_TEMPLATE_ID', 'that flair template id is not valid', 'flair_template_id'],
      ]);
    const text = body.text !== undefined && body.text !== '' ? String(body.text) : null;
    if (text !== null && !template.text_editable)
      return submitErrors(reply, [['FLAIR_NOT_EDITABLE', 'this flair cannot be edited', 'text']]);
    if (text !== null && text.length > 64)
      return submitErrors(reply, [['TOO_LONG', 'this is too long (max: 64)', 'text']]);
    post.flairId = template.id;
    post.flairText = text ?? template.text;
    const inspected = state.posts.find((p) => p.id === post.id && p.extra?.name === `t3_${post.id}`);
    if (inspected?.extra) Object.assign(inspected.extra, { flairId: post.flairId, flairText: post.flairText });
    return reply.type(JSON_TYPE).send({ json: { errors: [] } });
  };
  app.post('/r/:sr/api/selectflair', selectFlair);
  app.post('/api/selectflair', selectFlair);

  app.get('/_votes', async () => ({
    votes: [...store().votes].map(([key, dir]) => {
      const [userId, thing] = key.split(':');
      return { user: oauth.users().find((x) => x.id === userId)?.username ?? userId, thing, dir };
    }),
  }));
}
