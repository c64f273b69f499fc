import type { FastifyReply } from 'fastify';
import type { GraphCall } from '../graph/index.js';
import { graphError } from '../graph/errors.js';
import { newId, world, type GraphObject } from '../graph/world.js';
import type { InspectedPost, SimulatorState } from '../types.js';

/** Facebook's limit on a post's text (platforms.md section 4), in code points. */
const MESSAGE_LIMIT = 63_206;

/** Publishing as a Page takes that Page's token (a user token is refused, as on Graph). */
export function pageTokenRefused(call: GraphCall): FastifyReply | null {
  if (call.token.kind === 'page' && call.token.pageId === call.node.id) return null;
  return graphError(call.reply, 400, {
    message:
      '(#200) If posting to a page, requires both pages_read_engagement and pages_manage_posts as an admin with sufficient administrative permission',
    code: 200,
  });
}

export function tooLong(call: GraphCall, text: unknown): FastifyReply | null {
  if (typeof text !== 'string' || [...text].length <= MESSAGE_LIMIT) return null;
  return graphError(call.reply, 400, {
    message: `(#100) Param message must be at most ${MESSAGE_LIMIT} characters long`,
    code: 100,
  });
}

export function addObject(state: SimulatorState, o: Omit<GraphObject, 'id'> & { id?: string }): GraphObject {
  const object: GraphObject = { ...o, id: o.id ?? newId(state) };
  world(state).objects.set(object.id, object);
  return object;
}

/** Records a public item for `_inspect`. */
export function record(
  state: SimulatorState,
  item: Omit<InspectedPost, 'createdAt' | 'extra'> & { createdAt: number; extra?: Record<string, unknown> },
): InspectedPost {
  const post: InspectedPost = {
    ...item,
    createdAt: new Date(item.createdAt).toISOString(),
    extra: { comments: [], ...item.extra },
  };
  state.posts.push(post);
  return post;
}

export const truthy = (v: unknown) => v === true || v === 'true' || v === '1';

/** `attached_media` as a list of `{media_fbid}`, from JSON or a form's JSON string. */
export function attachedIds(value: unknown): string[] | null {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      return null;
    }
  }
  if (!Array.isArray(v)) return null;
  const ids = v.map((m) => (m && typeof m === 'object' ? String((m as Record<string, unknown>).media_fbid ?? '') : ''));
  return ids.every(Boolean) ? ids : null;
}

/** A photo's bytes: the `source` file, or what `url` serves (Graph fetches it itself). */
export async function photoBytes(
  call: GraphCall,
): Promise<{ size: number; type: string; url?: string } | FastifyReply> {
  const file = call.files.get('source');
  if (file) return { size: file.bytes.length, type: file.type || 'image/jpeg' };
  const url = typeof call.params.url === 'string' ? call.params.url : null;
  if (!url) return graphError(call.reply, 400, { message: '(#324) Requires upload file', code: 324 });
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    const bytes = Buffer.from(await res.arrayBuffer());
    if (!res.ok || !bytes.length) throw new Error(`HTTP ${res.status}`);
    return { size: bytes.length, type: res.headers.get('content-type') ?? 'image/jpeg', url };
  } catch {
    return graphError(call.reply, 400, { message: '(#324) Missing or invalid image file', code: 324 });
  }
}
