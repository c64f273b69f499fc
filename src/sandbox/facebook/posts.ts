import type { GraphCall, GraphHandler } from '../graph/index.js';
import { graphError, sendGraphFault, settleAmbiguous } from '../graph/errors.js';
import { newId, world } from '../graph/world.js';
import { markDeleted } from '../types.js';
import { addComment } from './inbox.js';
import { addObject, attachedIds, pageTokenRefused, photoBytes, record, tooLong, truthy } from './store.js';

/*
 * Page publishing other than video (https://developers.facebook.com/docs/pages-api/posts):
 * - `POST /{page}/feed {message, link, attached_media: [{media_fbid}], published}` answers `{id: "{page}_{post}"}`;
 * - `POST /{page}/photos {url | source, published: false}` answers `{id}`: a photo to attach, not public;
 *   published it is a post of its own (`{id, post_id}`);
 * - `POST /{page}/photo_stories {photo_id}` (an unpublished photo) answers `{success, post_id}`;
 * - `POST /{object}/comments {message}` answers `{id}`; `DELETE /{object}` answers `{success: true}`.
 */

const postUrl = (postId: string) => {
  const [page, post] = postId.split('_');
  return `https://www.facebook.com/${page}/posts/${post ?? page}`;
};

const feed: GraphHandler = (call) => {
  const refused = pageTokenRefused(call) ?? tooLong(call, call.params.message);
  if (refused) return refused;
  const { params, state, node, now } = call;
  const attached = params.attached_media === undefined ? [] : attachedIds(params.attached_media);
  if (!attached)
    return graphError(call.reply, 400, {
      message: '(#100) param attached_media must be an array of objects with media_fbid',
      code: 100,
    });
  const objects = world(state).objects;
  const photos = attached.map((id) => objects.get(id));
  const bad = photos.findIndex(
    (p) => !p || p.deleted || p.type !== 'Photo' || p.ownerId !== node.id || p.data.published || p.data.attached,
  );
  if (bad >= 0)
    return graphError(call.reply, 400, {
      message: `(#100) attached_media[${bad}] is not an unpublished photo of this Page`,
      code: 100,
    });
  if (!params.message && !params.link && !attached.length)
    return graphError(call.reply, 400, { message: '(#100) Missing message or attachment', code: 100 });
  if (params.published !== undefined && !truthy(params.published))
    return graphError(call.reply, 400, { message: '(#100) Unpublished feed posts are not simulated', code: 100 });
  const fault = state.faults.take('publish');
  if (sendGraphFault(call.reply, fault)) return call.reply;
  for (const p of photos) p!.data.attached = true;
  const id = `${node.id}_${newId(state)}`;
  addObject(state, {
    id,
    type: 'PagePost',
    ownerId: node.id,
    createdAt: now,
    data: { message: params.message ?? '', link: params.link ?? null },
  });
  record(state, {
    id,
    text: String(params.message ?? ''),
    media: photos.map((p) => ({ type: 'image', mimeType: String(p!.data.mimeType), size: Number(p!.data.size) })),
    author: node.id,
    destination: node.id,
    createdAt: now,
    extra: { kind: 'feed', link: params.link ?? null, photoIds: attached },
  });
  return settleAmbiguous(call.reply, fault, { id });
};

const photos: GraphHandler = async (call) => {
  const refused = pageTokenRefused(call) ?? tooLong(call, call.params.message ?? call.params.caption);
  if (refused) return refused;
  const { params, state, node, now } = call;
  const published = params.published === undefined ? true : truthy(params.published);
  const fault = state.faults.take(published ? 'publish' : 'upload');
  if (sendGraphFault(call.reply, fault)) return call.reply;
  const bytes = await photoBytes(call);
  if (!('size' in bytes)) return bytes;
  const photo = addObject(state, {
    type: 'Photo',
    ownerId: node.id,
    createdAt: now,
    data: { published, size: bytes.size, mimeType: bytes.type, url: bytes.url ?? null },
  });
  if (!published) return settleAmbiguous(call.reply, fault, { id: photo.id });
  const postId = `${node.id}_${photo.id}`;
  addObject(state, {
    id: postId,
    type: 'PagePost',
    ownerId: node.id,
    createdAt: now,
    data: { message: params.message ?? params.caption ?? '', photoId: photo.id },
  });
  record(state, {
    id: postId,
    text: String(params.message ?? params.caption ?? ''),
    media: [{ type: 'image', mimeType: bytes.type, size: bytes.size }],
    author: node.id,
    destination: node.id,
    createdAt: now,
    extra: { kind: 'photo' },
  });
  return settleAmbiguous(call.reply, fault, { id: photo.id, post_id: postId });
};

const photoStory: GraphHandler = (call) => {
  const refused = pageTokenRefused(call);
  if (refused) return refused;
  const { params, state, node, now } = call;
  const photo = world(state).objects.get(String(params.photo_id ?? ''));
  if (!photo || photo.deleted || photo.type !== 'Photo' || photo.ownerId !== node.id || photo.data.published) {
    return graphError(call.reply, 400, {
      message: '(#100) photo_id must be an unpublished photo of this Page',
      code: 100,
    });
  }
  const fault = state.faults.take('publish');
  if (sendGraphFault(call.reply, fault)) return call.reply;
  photo.data.attached = true;
  const postId = `${node.id}_${photo.id}`;
  addObject(state, {
    id: postId,
    type: 'PagePost',
    ownerId: node.id,
    createdAt: now,
    data: { story: true, photoId: photo.id },
  });
  record(state, {
    id: postId,
    text: '',
    media: [{ type: 'image', mimeType: String(photo.data.mimeType), size: Number(photo.data.size) }],
    author: node.id,
    destination: node.id,
    createdAt: now,
    extra: { kind: 'story' },
  });
  return settleAmbiguous(call.reply, fault, { success: true, post_id: postId });
};

const comment: GraphHandler = (call) => {
  const { params, state, node, now, token } = call;
  const object = node.object!;
  // A Page comments on its own posts, and on posts by others that tag it (its mentions).
  const tagged = token.kind === 'page' && ((object.data.tags as string[] | undefined) ?? []).includes(token.pageId!);
  if (token.kind !== 'page' || (token.pageId !== object.ownerId && !tagged)) {
    return graphError(call.reply, 400, {
      message: '(#200) Permissions error: comment as the Page with its Page access token',
      code: 200,
    });
  }
  const text = typeof params.message === 'string' ? params.message : '';
  if (!text && !params.attachment_url && !params.attachment_id)
    return graphError(call.reply, 400, { message: '(#100) Missing message or attachment', code: 100 });
  if (object.data.story)
    return graphError(call.reply, 400, { message: '(#100) Stories cannot be commented on', code: 100 });
  const fault = state.faults.take('comment');
  if (sendGraphFault(call.reply, fault)) return call.reply;
  const page = world(state).pages.get(token.pageId!);
  const c = addComment(state, object, { id: token.pageId!, name: page?.name ?? token.pageId! }, text, now);
  return settleAmbiguous(call.reply, fault, { id: c.id });
};

const remove: GraphHandler = (call) => {
  const { state, node, token } = call;
  const object = node.object!;
  if (token.kind !== 'page' || token.pageId !== object.ownerId)
    return graphError(call.reply, 400, { message: '(#200) Permissions error', code: 200 });
  const fault = state.faults.take('delete');
  if (sendGraphFault(call.reply, fault)) return call.reply;
  object.deleted = true;
  markDeleted(state, object.id);
  return settleAmbiguous(call.reply, fault, { success: true });
};

/**
 * `POST /{post-id} {message}`: Graph edits the text of a Page post made by the same app, with the Page's
 * token; a story has no text to edit. Answers `{success: true}`.
 * https://developers.facebook.com/docs/graph-api/reference/page-post/#updating
 */
const update: GraphHandler = (call) => {
  const { params, state, token } = call;
  const object = call.node.object!;
  if (token.kind !== 'page' || token.pageId !== object.ownerId)
    return graphError(call.reply, 400, { message: '(#200) Permissions error', code: 200 });
  if (object.data.story) return graphError(call.reply, 400, { message: '(#100) A story cannot be edited', code: 100 });
  const refused = tooLong(call, params.message);
  if (refused) return refused;
  if (params.message === undefined)
    return graphError(call.reply, 400, { message: '(#100) Nothing to update: message is required', code: 100 });
  const fault = state.faults.take('publish');
  if (sendGraphFault(call.reply, fault)) return call.reply;
  object.data.message = String(params.message);
  const seen = state.posts.find((p) => p.id === object.id);
  if (seen) {
    seen.text = String(params.message);
    seen.extra = { ...seen.extra, edited: true };
  }
  return settleAmbiguous(call.reply, fault, { success: true });
};

const readPost: GraphHandler = (call: GraphCall) => {
  const o = call.node.object!;
  return {
    id: o.id,
    message: o.data.message ?? undefined,
    created_time: new Date(o.createdAt).toISOString(),
    permalink_url: postUrl(o.id),
    is_published: true,
  };
};

export const POST_HANDLERS: Record<string, GraphHandler> = {
  'POST Page feed': feed,
  'POST Page photos': photos,
  'POST Page photo_stories': photoStory,
  'POST PagePost comments': comment,
  'POST Photo comments': comment,
  'POST AdVideo comments': comment,
  'DELETE PagePost': remove,
  'DELETE Photo': remove,
  'DELETE AdVideo': remove,
  'DELETE Comment': remove,
  'GET PagePost': readPost,
  'POST PagePost': update,
};
