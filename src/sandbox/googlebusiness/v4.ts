import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthSim } from '../oauth.js';
import { hangUp, markDeleted, type SimulatorState } from '../types.js';
import { checkFoodMenus, checkLocalPost, checkNewMedia } from './rules.js';
import {
  gbpError,
  gbpStore,
  locationFor,
  maskPaths,
  sendFault,
  userFor,
  type GbpPost,
  type LocalPostBody,
} from './store.js';

/*
 * The v4 Google My Business API (mybusiness.googleapis.com/v4) the simulator serves: local posts
 * (https://developers.google.com/my-business/reference/rest/v4/accounts.locations.localPosts), food menus
 * (https://developers.google.com/my-business/reference/rest/v4/accounts.locations/getFoodMenus and
 * /updateFoodMenus) and media (https://developers.google.com/my-business/reference/rest/v4/accounts.locations.media).
 */

type Params = { a: string; l: string; p?: string; m?: string };

const newPostId = () =>
  BigInt(`0x${randomBytes(8).toString('hex')}`)
    .toString()
    .slice(0, 19);

/** The LocalPost fields a patch may change (the rest are output only, or fixed at creation like topicType). */
const PATCHABLE = ['languageCode', 'summary', 'callToAction', 'event', 'media', 'alertType', 'offer'];

/**
 * An EVENT or OFFER post whose schedule has ended (`event.schedule.endDate`, and `endTime` if any, read
 * as UTC): Google drops it, and reads and patches of it are 404s.
 */
function ended(post: GbpPost, nowMs: number): boolean {
  const end = post.body.event?.schedule?.endDate as { year?: number; month?: number; day?: number } | undefined;
  if (!end?.year || !end.month || !end.day) return false;
  const time = (post.body.event?.schedule?.endTime ?? {}) as { hours?: number; minutes?: number };
  const at = Date.UTC(end.year, end.month - 1, end.day, time.hours ?? 23, time.minutes ?? 59, 59);
  return nowMs > at;
}

export function registerV4(app: FastifyInstance, state: SimulatorState, oauth: OAuthSim, now: () => number): void {
  const store = () => gbpStore(state);
  const locationOf = (request: FastifyRequest, reply: FastifyReply) => {
    const user = userFor(request, reply, oauth);
    if (!user) return null;
    const { a, l } = request.params as Params;
    return locationFor(state, reply, user, l, a);
  };

  const postResource = (post: GbpPost) => {
    const name = `accounts/${post.accountId}/locations/${post.locationId}/localPosts/${post.id}`;
    return {
      name,
      ...(post.body.languageCode ? { languageCode: post.body.languageCode } : {}),
      ...(post.body.summary !== undefined ? { summary: post.body.summary } : {}),
      ...(post.body.callToAction ? { callToAction: post.body.callToAction } : {}),
      ...(post.body.event ? { event: post.body.event } : {}),
      ...(post.body.offer ? { offer: post.body.offer } : {}),
      createTime: new Date(post.createdAt).toISOString(),
      updateTime: new Date(post.updatedAt ?? post.createdAt).toISOString(),
      // LocalPostState: PROCESSING while Google reviews the post, then LIVE.
      state: now() < post.liveAt ? 'PROCESSING' : 'LIVE',
      ...(post.body.media?.length
        ? {
            media: post.body.media.map((m, i) => ({
              name: `${name}/media/${i + 1}`,
              mediaFormat: m.mediaFormat,
              sourceUrl: m.sourceUrl,
              googleUrl: `https://lh3.googleusercontent.com/p/${post.id}-${i + 1}`,
            })),
          }
        : {}),
      searchUrl: `https://local.google.com/place?id=${post.locationId}&use=posts&lpsid=${post.id}`,
      topicType: post.body.topicType,
    };
  };

  app.post('/v4/accounts/:a/locations/:l/localPosts', async (request, reply) => {
    const loc = locationOf(request, reply);
    if (!loc) return reply;
    const problem = checkLocalPost(request.body);
    if (problem) return gbpError(reply, 400, problem.message, problem.field);
    const fault = state.faults.take('publish');
    if (sendFault(reply, fault)) return reply;
    const body = request.body as LocalPostBody; // checked by checkLocalPost
    const at = now();
    const post: GbpPost = {
      id: newPostId(),
      accountId: loc.accountId,
      locationId: loc.id,
      body,
      createdAt: at,
      liveAt: at + state.config.processingMs,
      deleted: false,
    };
    store().posts.set(post.id, post);
    const resource = postResource(post);
    state.posts.push({
      id: resource.name,
      text: body.summary ?? '',
      media: (body.media ?? []).map((m) => ({
        type: m.mediaFormat === 'PHOTO' ? 'image' : 'video',
        url: m.sourceUrl,
      })),
      author: loc.accountId,
      createdAt: resource.createTime,
      destination: `locations/${loc.id}`,
      extra: {
        topicType: body.topicType,
        callToAction: body.callToAction ?? null,
        languageCode: body.languageCode ?? null,
        searchUrl: resource.searchUrl,
      },
    });
    if (fault === 'ambiguous') return hangUp(reply);
    return resource;
  });

  app.get('/v4/accounts/:a/locations/:l/localPosts', async (request, reply) => {
    const loc = locationOf(request, reply);
    if (!loc) return reply;
    const fault = state.faults.take('lookup');
    if (sendFault(reply, fault)) return reply;
    if (fault === 'ambiguous') return hangUp(reply);
    const size = Math.min(100, Math.max(1, Number((request.query as Record<string, string>).pageSize ?? 20)));
    const posts = [...store().posts.values()]
      .filter((p) => p.locationId === loc.id && !p.deleted)
      .sort((x, y) => y.createdAt - x.createdAt);
    return { localPosts: posts.slice(0, size).map(postResource) };
  });

  app.get('/v4/accounts/:a/locations/:l/localPosts/:p', async (request, reply) => {
    const loc = locationOf(request, reply);
    if (!loc) return reply;
    const post = store().posts.get((request.params as Params).p!);
    if (!post || post.deleted || post.locationId !== loc.id)
      return gbpError(reply, 404, 'Requested entity was not found.');
    return postResource(post);
  });

  /**
   * localPosts.patch (https://developers.google.com/my-business/reference/rest/v4/accounts.locations.localPosts/patch):
   * `updateMask` is required and names the fields to change; the post must still be there: one deleted,
   * or an event or offer past its end, is a 404. The result must still be a valid post (summary limit).
   */
  app.patch('/v4/accounts/:a/locations/:l/localPosts/:p', async (request, reply) => {
    const loc = locationOf(request, reply);
    if (!loc) return reply;
    const mask = maskPaths((request.query as Record<string, string>).updateMask);
    if (mask.length === 0) return gbpError(reply, 400, 'updateMask is required.', 'update_mask');
    const bad = mask.find((p) => !PATCHABLE.includes(p));
    if (bad) return gbpError(reply, 400, `Invalid field mask path: ${bad}`, 'update_mask');
    const post = store().posts.get((request.params as Params).p!);
    if (!post || post.deleted || post.locationId !== loc.id || ended(post, now()))
      return gbpError(reply, 404, 'Requested entity was not found.');
    const body = (request.body ?? {}) as Record<string, unknown>;
    const next: LocalPostBody = { ...post.body };
    for (const field of mask) {
      if (body[field] === undefined) delete next[field];
      else next[field] = body[field];
    }
    const problem = checkLocalPost(next);
    if (problem) return gbpError(reply, 400, problem.message, problem.field);
    const fault = state.faults.take('publish');
    if (sendFault(reply, fault)) return reply;
    post.body = next;
    post.updatedAt = now();
    const resource = postResource(post);
    const seen = state.posts.find((p) => p.id === resource.name);
    if (seen) {
      seen.text = typeof next.summary === 'string' ? next.summary : '';
      seen.extra = { ...seen.extra, callToAction: next.callToAction ?? null, edited: true };
    }
    if (fault === 'ambiguous') return hangUp(reply);
    return resource;
  });

  app.delete('/v4/accounts/:a/locations/:l/localPosts/:p', async (request, reply) => {
    const loc = locationOf(request, reply);
    if (!loc) return reply;
    const post = store().posts.get((request.params as Params).p!);
    if (!post || post.deleted || post.locationId !== loc.id)
      return gbpError(reply, 404, 'Requested entity was not found.');
    const fault = state.faults.take('delete');
    if (sendFault(reply, fault)) return reply;
    post.deleted = true;
    markDeleted(state, postResource(post).name);
    if (fault === 'ambiguous') return hangUp(reply);
    return {};
  });

  // Food menus: only for a location whose metadata says canHaveFoodMenus (updateFoodMenus: "Only call this
  // if location.location_state.can_have_food_menu is true").
  app.get('/v4/accounts/:a/locations/:l/foodMenus', async (request, reply) => {
    const loc = locationOf(request, reply);
    if (!loc) return reply;
    if (!loc.resource.metadata.canHaveFoodMenus)
      return gbpError(reply, 400, 'The location is not eligible for food menus.');
    return {
      name: `accounts/${loc.accountId}/locations/${loc.id}/foodMenus`,
      ...(loc.menus.length ? { menus: loc.menus } : {}),
    };
  });

  app.patch('/v4/accounts/:a/locations/:l/foodMenus', async (request, reply) => {
    const loc = locationOf(request, reply);
    if (!loc) return reply;
    if (!loc.resource.metadata.canHaveFoodMenus)
      return gbpError(reply, 400, 'The location is not eligible for food menus.');
    // updateMask: the fields to update; FoodMenus has one (`menus`). Without a mask the whole resource is replaced.
    const mask = maskPaths((request.query as Record<string, string>).updateMask);
    const bad = mask.find((p) => p !== 'menus');
    if (bad) return gbpError(reply, 400, `Invalid field mask path: ${bad}`, 'update_mask');
    const problem = checkFoodMenus(request.body);
    if (problem) return gbpError(reply, 400, problem.message, problem.field);
    loc.menus = structuredClone((request.body as { menus: Record<string, unknown>[] }).menus);
    return {
      name: `accounts/${loc.accountId}/locations/${loc.id}/foodMenus`,
      ...(loc.menus.length ? { menus: loc.menus } : {}),
    };
  });

  app.get('/v4/accounts/:a/locations/:l/media', async (request, reply) => {
    const loc = locationOf(request, reply);
    if (!loc) return reply;
    return { mediaItems: loc.media, totalMediaItemCount: loc.media.length };
  });

  app.post('/v4/accounts/:a/locations/:l/media', async (request, reply) => {
    const loc = locationOf(request, reply);
    if (!loc) return reply;
    const problem = checkNewMedia(request.body);
    if (problem) return gbpError(reply, 400, problem.message, problem.field);
    const body = request.body as Record<string, unknown>;
    const id = `AF1Qip${randomBytes(12).toString('base64url')}`;
    const item = {
      name: `accounts/${loc.accountId}/locations/${loc.id}/media/${id}`,
      mediaFormat: body.mediaFormat,
      locationAssociation: body.locationAssociation,
      googleUrl: `https://lh3.googleusercontent.com/p/${id}`,
      thumbnailUrl: `https://lh3.googleusercontent.com/p/${id}=s300`,
      createTime: new Date(now()).toISOString(),
      sourceUrl: body.sourceUrl,
      ...(body.description ? { description: body.description } : {}),
    };
    loc.media.push(item);
    return item;
  });

  app.delete('/v4/accounts/:a/locations/:l/media/:m', async (request, reply) => {
    const loc = locationOf(request, reply);
    if (!loc) return reply;
    const i = loc.media.findIndex((m) => m.name.endsWith(`/media/${(request.params as Params).m}`));
    if (i < 0) return gbpError(reply, 404, 'Requested entity was not found.');
    loc.media.splice(i, 1);
    return {};
  });

  // Places the v4 API does not have: a helpful 404 in Google's shape rather than Fastify's.
  app.all('/v4/*', async (_request, reply) => gbpError(reply, 404, 'Method not found.'));
}
