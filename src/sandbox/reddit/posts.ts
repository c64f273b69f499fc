import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FaultKind } from '../faults.js';
import { formBody, type OAuthSim, type OAuthUser } from '../oauth.js';
import type { LimitRule } from '../rate-limits.js';
import { hangUp, type InspectedPost, markDeleted, type SimulatorState } from '../types.js';
import type { RouteHandler } from './inbox.js';
import { assetOfUrl } from './media.js';
import { findSubreddit, nextRdId, permalink, type RdAsset, type RdPost, type RdSubreddit, rdStore } from './store.js';
import { apiUser, httpError, JSON_TYPE, serverBusy, submitErrors } from './wire.js';

/*
 * Submissions: `POST /api/submit` (form; kinds self, link, image, video, videogif),
 * `POST /api/submit_gallery_post.json` (JSON; undocumented, as PRAW sends it) and `POST /api/del`.
 * Refusals are HTTP 200 with `json.errors` [[CODE, message, field]]; codes and messages are r2's
 * (reddit-archive/reddit `r2/r2/lib/errors.py`), plus the newer post-requirement validation
 * (`SUBMIT_VALIDATION_FLAIR_REQUIRED`).
 */

type SubmitError = [string, string, string | null];

const TITLE_MAX = 300;
const SELF_MAX = 40_000;
const GALLERY_MIN = 2;
const GALLERY_MAX = 20;

const codePoints = (s: string) => [...s].length;

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** What every kind of submission must have: a subreddit the user may post in, a title, a flair where one is required. */
/**
 * A submit_gallery_post.json body: the fields read, typed as commonErrors and the checks after it
 * require them (a body that is not so is refused before they are used).
 */
interface GalleryBody {
  sr: string;
  title: string;
  flair_id?: string;
  flair_text?: string;
  nsfw?: unknown;
  spoiler?: unknown;
  items?: unknown;
  [key: string]: unknown;
}

function commonErrors(
  sr: RdSubreddit | null,
  srName: string | undefined,
  title: string | undefined,
  flairId: string | undefined,
): SubmitError[] {
  const errors: SubmitError[] = [];
  if (!srName) errors.push(['SUBREDDIT_REQUIRED', 'you must specify a subreddit', 'sr']);
  else if (!sr) errors.push(['SUBREDDIT_NOEXIST', "that subreddit doesn't exist", 'sr']);
  if (!title?.trim()) errors.push(['NO_TEXT', 'we need something here', 'title']);
  else if (codePoints(title) > TITLE_MAX) errors.push(['TOO_LONG', `this is too long (max: ${TITLE_MAX})`, 'title']);
  if (sr && flairId && !sr.flairs.some((f) => f.id === flairId)) {
    // Not in r2's list: the code the simulator gives an unknown template id.
    errors.push(['INVALID_FLAIR_TEMPLATE_ID', 'that flair template does not exist in this subreddit', 'flair']);
  } else if (sr?.flairRequired && !flairId) {
    errors.push(['SUBMIT_VALIDATION_FLAIR_REQUIRED', 'Your post must contain post flair.', 'flair']);
  }
  return errors;
}

function usableAsset(asset: RdAsset | null, user: OAuthUser, kind: 'image' | 'video'): boolean {
  return !!asset && asset.owner === user.id && asset.uploaded !== null && asset.mimetype.startsWith(`${kind}/`);
}

/** Answers an injected fault as Reddit does; false for none or `ambiguous` (the caller records, then hangs up). */
export function sendFault(reply: FastifyReply, fault: FaultKind | null, rejection: SubmitError): boolean {
  if (fault === 'rate_limited') {
    reply.header('x-ratelimit-remaining', '0').header('x-ratelimit-reset', '120');
    httpError(reply, 429);
  } else if (fault === 'unavailable') serverBusy(reply);
  else if (fault === 'auth') httpError(reply, 401);
  else if (fault === 'rejected') submitErrors(reply, [rejection]);
  else return false;
  return true;
}

export function registerRedditPosts(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  limit: LimitRule,
  now: () => Date,
  editComment: RouteHandler,
): void {
  const store = () => rdStore(state);

  const record = (
    user: OAuthUser,
    fields: Omit<RdPost, 'id' | 'author' | 'authorId' | 'createdAt' | 'readyAt' | 'deleted'>,
    readyInMs = 0,
  ): RdPost => {
    const at = now().getTime();
    const post: RdPost = {
      ...fields,
      id: nextRdId(store()),
      author: user.username,
      authorId: user.id,
      createdAt: at,
      readyAt: at + readyInMs,
      deleted: false,
    };
    store().posts.set(post.id, post);
    state.posts.push(inspected(post));
    return post;
  };

  const submit = async (request: FastifyRequest, reply: FastifyReply) => {
    const user = apiUser(state, oauth, request, reply, limit, now().getTime());
    if (!user) return reply;
    const body = formBody(request);
    // Without api_type=json, /api/submit answers in its old jQuery format.
    if (body.api_type !== 'json')
      return reply.type(JSON_TYPE).send({ jquery: [[0, 1, 'call', ['body']]], success: false });
    const sr = findSubreddit(store(), body.sr);
    const kind = body.kind as RdPost['kind'];
    const errors = commonErrors(sr, body.sr, body.title, body.flair_id);
    let assets: RdPost['assets'] = [];
    if (kind === 'self') {
      if (sr?.submissionType === 'link') errors.push(['NO_SELFS', "that subreddit doesn't allow text posts", 'sr']);
      if (codePoints(body.text ?? '') > SELF_MAX)
        errors.push(['TOO_LONG', `this is too long (max: ${SELF_MAX})`, 'text']);
    } else if (kind === 'link') {
      if (sr?.submissionType === 'self') errors.push(['NO_LINKS', 'that subreddit only allows text posts', 'sr']);
      if (!body.url) errors.push(['NO_URL', 'a url is required', 'url']);
      else if (!isHttpUrl(body.url)) errors.push(['BAD_URL', 'you should check that url', 'url']);
    } else if (kind === 'image' || kind === 'video' || kind === 'videogif') {
      const media = kind === 'image' ? 'image' : 'video';
      const asset = assetOfUrl(state, body.url ?? '');
      if (sr?.submissionType === 'self') errors.push(['NO_LINKS', 'that subreddit only allows text posts', 'sr']);
      if (sr && !(media === 'image' ? sr.allowImages : sr.allowVideos))
        errors.push(['NO_IMAGES', "that subreddit doesn't allow this kind of media", 'sr']);
      if (!usableAsset(asset, user, media)) errors.push(['BAD_URL', 'you should check that url', 'url']);
      else assets = [{ asset: asset! }];
      // A video submission needs an uploaded poster image (PRAW uploads one when none is given).
      if (kind === 'video' && !usableAsset(assetOfUrl(state, body.video_poster_url ?? ''), user, 'image')) {
        errors.push(['BAD_URL', 'you should check that url', 'video_poster_url']);
      }
    } else {
      errors.push(['INVALID_OPTION', 'that option is not valid', 'kind']);
    }
    if (errors.length) return submitErrors(reply, errors);
    const fault = state.faults.take('publish');
    if (sendFault(reply, fault, ['SUBREDDIT_NOTALLOWED', "you aren't allowed to post there.", 'sr'])) return reply;
    const flair = sr!.flairs.find((f) => f.id === body.flair_id);
    const post = record(
      user,
      {
        subreddit: sr!,
        kind,
        title: body.title!,
        selftext: kind === 'self' ? (body.text ?? '') : '',
        url: kind === 'link' ? body.url! : '',
        flairId: flair?.id ?? null,
        flairText: body.flair_text || flair?.text || null,
        nsfw: body.nsfw === 'true' || body.nsfw === 'True',
        spoiler: body.spoiler === 'true' || body.spoiler === 'True',
        assets,
      },
      kind === 'video' ? state.config.processingMs : 0,
    );
    if (fault === 'ambiguous') return hangUp(reply);
    if (kind === 'self' || kind === 'link') {
      return reply.type(JSON_TYPE).send({
        json: {
          errors: [],
          data: { url: `https://www.reddit.com${permalink(post)}`, id: post.id, name: `t3_${post.id}` },
        },
      });
    }
    // Media submissions are created once Reddit has processed the upload: the answer names no post, only
    // where to watch (recorded test_submit_image: `user_submitted_page` and `websocket_url`).
    return reply.type(JSON_TYPE).send({
      json: {
        errors: [],
        data: {
          user_submitted_page: `https://www.reddit.com/user/${user.username}/submitted/`,
          websocket_url: `wss://${new URL(state.baseUrl()).host}/ws/${assets[0].asset.id}?m=${post.id}`,
        },
      },
    });
  };
  app.post('/api/submit', submit);
  app.post('/api/submit/', submit);

  app.post('/api/submit_gallery_post.json', async (request, reply) => {
    const user = apiUser(state, oauth, request, reply, limit, now().getTime());
    if (!user) return reply;
    const body = (Buffer.isBuffer(request.body) ? null : request.body) as GalleryBody | null;
    if (!body || typeof body !== 'object') return httpError(reply, 400, { explanation: 'a JSON body is required' });
    const sr = findSubreddit(store(), body.sr);
    const errors = commonErrors(sr, body.sr, body.title, body.flair_id);
    const items = Array.isArray(body.items) ? body.items : [];
    if (sr && !sr.allowGalleries) errors.push(['NO_IMAGES', "that subreddit doesn't allow galleries", 'sr']);
    if (items.length < GALLERY_MIN || items.length > GALLERY_MAX) {
      errors.push(['INVALID_OPTION', `a gallery holds ${GALLERY_MIN} to ${GALLERY_MAX} items`, 'items']);
    }
    const assets: RdPost['assets'] = [];
    for (const item of items) {
      const asset = store().assets.get(String(item?.media_id ?? '')) ?? null;
      if (!usableAsset(asset, user, 'image')) {
        errors.push(['MEDIA_ID_INVALID', `media_id ${String(item?.media_id)} was not uploaded`, 'items']);
        break;
      }
      if (item.outbound_url && !isHttpUrl(item.outbound_url))
        errors.push(['BAD_URL', 'you should check that url', 'outbound_url']);
      assets.push({ asset: asset!, caption: item.caption || undefined, outboundUrl: item.outbound_url || undefined });
    }
    if (errors.length) return submitErrors(reply, errors);
    const fault = state.faults.take('publish');
    if (sendFault(reply, fault, ['SUBREDDIT_NOTALLOWED', "you aren't allowed to post there.", 'sr'])) return reply;
    const flair = sr!.flairs.find((f) => f.id === body.flair_id);
    const post = record(user, {
      subreddit: sr!,
      kind: 'gallery',
      title: body.title,
      selftext: '',
      url: '',
      flairId: flair?.id ?? null,
      flairText: body.flair_text || flair?.text || null,
      nsfw: body.nsfw === true,
      spoiler: body.spoiler === true,
      assets,
    });
    if (fault === 'ambiguous') return hangUp(reply);
    // NOTE: the gallery answer's `id` is the fullname (`t3_huw6vs`), unlike /api/submit's (recorded test_submit_gallery).
    return reply
      .type(JSON_TYPE)
      .send({ json: { errors: [], data: { url: `https://www.reddit.com${permalink(post)}`, id: `t3_${post.id}` } } });
  });

  /**
   * `POST /api/editusertext {api_type: json, thing_id, text}`: the body of the caller's own self-post (or
   * comment). Answers the edited thing in `json.data.things`; refusals as `json.errors` (r2's NOT_AUTHOR,
   * NO_SELFS for a post without a body, TOO_LONG). https://www.reddit.com/dev/api#POST_api_editusertext
   */
  app.post('/api/editusertext', async (request, reply) => {
    if (String(formBody(request).thing_id ?? '').startsWith('t1_')) return editComment(request, reply);
    const user = apiUser(state, oauth, request, reply, limit, now().getTime());
    if (!user) return reply;
    const body = formBody(request);
    const id = String(body.thing_id ?? '');
    const post = id.startsWith('t3_') ? store().posts.get(id.slice(3)) : undefined;
    if (!post || post.deleted) return httpError(reply, 404);
    if (post.authorId !== user.id) return submitErrors(reply, [['NOT_AUTHOR', 'you are not the author', 'thing_id']]);
    if (post.kind !== 'self') return submitErrors(reply, [['NO_SELFS', 'this post has no text to edit', 'thing_id']]);
    const text = String(body.text ?? '');
    if (codePoints(text) > SELF_MAX)
      return submitErrors(reply, [['TOO_LONG', `this is too long (max: ${SELF_MAX})`, 'text']]);
    const fault = state.faults.take('publish');
    if (sendFault(reply, fault, ['NOT_AUTHOR', 'you are not the author', 'thing_id'])) return reply;
    post.selftext = text;
    const seen = state.posts.find((p) => p.id === post.id);
    if (seen) {
      seen.text = text;
      seen.extra = { ...seen.extra, edited: true };
    }
    if (fault === 'ambiguous') return hangUp(reply);
    const data = { id: post.id, name: `t3_${post.id}`, selftext: text, edited: Math.floor(now().getTime() / 1000) };
    return reply.type(JSON_TYPE).send({ json: { errors: [], data: { things: [{ kind: 't3', data }] } } });
  });

  app.post('/api/del', async (request, reply) => {
    const user = apiUser(state, oauth, request, reply, limit, now().getTime());
    if (!user) return reply;
    const body = formBody(request);
    const fault = state.faults.take('delete');
    if (sendFault(reply, fault, ['NOT_AUTHOR', 'you are not the author', 'id'])) return reply;
    // Reddit answers `{}` whether or not the thing existed or was the caller's.
    const id = String(body.id ?? '');
    const thing = id.startsWith('t1_') ? store().comments.get(id.slice(3)) : store().posts.get(id.replace(/^t3_/, ''));
    if (thing && thing.authorId === user.id && !thing.deleted) {
      thing.deleted = true;
      markDeleted(state, thing.id);
    }
    if (fault === 'ambiguous') return hangUp(reply);
    return reply.type(JSON_TYPE).send({});
  });
}

function inspected(post: RdPost): InspectedPost {
  return {
    id: post.id,
    text: post.selftext,
    media: post.assets.map(({ asset, caption }) => ({
      type: asset.mimetype.split('/')[0],
      url: asset.id,
      mimeType: asset.mimetype,
      size: asset.uploaded?.size,
      ...(caption ? { altText: caption } : {}),
    })),
    author: post.author,
    destination: post.subreddit.name,
    createdAt: new Date(post.createdAt).toISOString(),
    replyTo: null,
    extra: {
      kind: post.kind,
      title: post.title,
      url: post.url || null,
      name: `t3_${post.id}`,
      permalink: permalink(post),
      flairId: post.flairId,
      flairText: post.flairText,
      nsfw: post.nsfw,
      spoiler: post.spoiler,
      ...(post.kind === 'gallery'
        ? {
            items: post.assets.map((a) => ({
              mediaId: a.asset.id,
              caption: a.caption ?? '',
              outboundUrl: a.outboundUrl ?? '',
            })),
          }
        : {}),
    },
  };
}
