import type { GraphHandler } from './index.js';
import { graphError, sendGraphFault } from './errors.js';
import { subscribersOf } from '../metrics.js';
import { pagesOf, pageTokenFor, world, type GraphPage } from './world.js';

/*
 * The user and their Pages, as Facebook Login apps see them (`/me`, `/me/accounts`, `/{page}`): shared by
 * the Facebook simulator (Pages to post to) and the Instagram one (Pages whose linked professional
 * account posts).
 */

const picture = (id: string) => ({
  data: { url: `https://graph.facebook.com/${id}/picture`, is_silhouette: false, height: 50, width: 50 },
});

/**
 * A Page as `/me/accounts` and `GET /{page}` show it; the token only to whoever may have it. NOTE: Graph
 * also sends `tasks` on `/me/accounts`, but Meta's Page spec does not define that field, so the
 * simulator (held to the spec) does not send it and the adapter must not need it.
 */
function pageFields(page: GraphPage, token?: string): Record<string, unknown> {
  return {
    id: page.id,
    name: page.name,
    username: page.username,
    category: page.category,
    fan_count: page.fanCount,
    picture: picture(page.id),
    link: `https://www.facebook.com/${page.username}`,
    instagram_business_account: { id: page.igUserId },
    access_token: token,
  };
}

const me: GraphHandler = (call) => {
  const user = world(call.state).users.get(call.node.id)!;
  return {
    id: user.id,
    name: user.name,
    picture: picture(user.id),
    link: `https://www.facebook.com/app_scoped_user_id/${user.id}`,
  };
};

/** `GET /me/accounts`: the user's Pages with a Page token each (https://developers.facebook.com/docs/pages-api/getting-started). */
const accounts: GraphHandler = (call) => {
  const { token, node, state } = call;
  if (token.kind !== 'user' || token.userId !== node.id)
    return graphError(call.reply, 400, {
      message: '(#100) accounts is only available to the user with a user access token',
      code: 100,
    });
  const fault = state.faults.take('destinations');
  if (sendGraphFault(call.reply, fault)) return call.reply;
  const data = pagesOf(state, node.id).map((p) => pageFields(p, pageTokenFor(state, token, p.id).token));
  return { data, paging: { cursors: { before: 'QVFIU', after: 'QVFIU' } } };
};

/** `GET /{page}`: `access_token` to the Page's admin (user token) or the Page itself. */
const readPage: GraphHandler = (call) => {
  const { token, node, state } = call;
  const page = node.page!;
  const allowed =
    (token.kind === 'user' && token.userId === page.ownerId) || (token.kind === 'page' && token.pageId === page.id);
  const pageToken =
    token.kind === 'page' ? token.token : allowed ? pageTokenFor(state, token, page.id).token : undefined;
  // followers_count: sandbox/metrics.ts (`_metrics {postId: <page id>, metrics: {followers}}` sets it).
  return { ...pageFields(page, allowed ? pageToken : undefined), followers_count: subscribersOf(state, page.id) };
};

export const PAGE_HANDLERS: Record<string, GraphHandler> = {
  'GET User': me,
  'GET User accounts': accounts,
  'GET Page': readPage,
};
