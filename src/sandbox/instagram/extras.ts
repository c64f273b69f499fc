import type { FastifyReply, FastifyRequest } from 'fastify';
import { graphError, sendGraphFault } from '../graph/errors.js';
import { bearer, readParams } from '../graph/index.js';
import { liveToken, stableId, world, type GraphToken } from '../graph/world.js';
import type { SimulatorState } from '../types.js';
import { actsFor } from './login.js';

/*
 * Two Instagram reads that Meta's codegen specs (graph/specs) do not describe, answered before the Graph
 * router (`unlisted`), each held to its reference page:
 * - the User Profile API (https://developers.facebook.com/docs/messenger-platform/instagram/features/
 *   user-profile): `GET /{igsid}?fields=name,username,profile_pic,follower_count,is_user_follow_business,
 *   is_business_follow_user,is_verified_user` with a token that acts for the account. Meta answers only
 *   for someone who has messaged the account; a commenter who never did is `User consent is required to
 *   access user profile` (code 230). An id the simulator has never seen goes on to the router, which
 *   answers Graph's "does not exist" (code 100, subcode 33), as Meta does for an id that is no IGSID.
 * - the Audio API (https://developers.facebook.com/docs/instagram-platform/content-publishing/audio-api):
 *   `GET /ig_audio?audio_type=music|original_sound&user_id={ig-user}[&search_query=]` with a Facebook
 *   Login User token of the account's Page owner (Instagram Login tokens are refused: the API is
 *   Facebook Login only), trending assets without a query; `GET /{audio-id}?user_id=` reads one asset.
 * Who follows whom: `from.follows` / `from.followedBack` on an `_inbound` message (the latest says);
 * false until one says otherwise. Fault op `lookup` on both.
 */

const PROFILE_FIELDS = [
  'name',
  'username',
  'profile_pic',
  'follower_count',
  'is_user_follow_business',
  'is_business_follow_user',
  'is_verified_user',
];
const AUDIO_FIELDS = [
  'audio_id',
  'audio_type',
  'title',
  'duration_in_ms',
  'display_artist',
  'cover_artwork_thumbnail_url',
  'download_url',
  'ig_username',
  'profile_picture_url',
  'is_ads_eligible',
  'on_platform_audio_preview_link',
];

interface IgPerson {
  id: string;
  username: string;
}

interface Follows {
  follows: boolean;
  followedBack: boolean;
}

const followsOf = (state: SimulatorState): Map<string, Follows> => {
  let m = state.data.get('ig-follows') as Map<string, Follows> | undefined;
  if (!m) state.data.set('ig-follows', (m = new Map()));
  return m;
};

/** `_inbound` message `from.follows` / `from.followedBack`: kept for the User Profile API (default false). */
export function setFollows(
  state: SimulatorState,
  igUserId: string,
  personId: string,
  from: { follows?: unknown; followedBack?: unknown },
): void {
  const key = `${igUserId}:${personId}`;
  const was = followsOf(state).get(key) ?? { follows: false, followedBack: false };
  followsOf(state).set(key, {
    follows: typeof from.follows === 'boolean' ? from.follows : was.follows,
    followedBack: typeof from.followedBack === 'boolean' ? from.followedBack : was.followedBack,
  });
}

interface AudioAsset {
  audio_id: string;
  audio_type: 'music' | 'original_sound';
  title: string;
  duration_in_ms: number;
  display_artist?: string;
  ig_username?: string;
}

/** The sandbox catalogue: a few licensed tracks and original sounds, with stable ids. */
const CATALOGUE: AudioAsset[] = [
  ['music', 'Sandbox Sunrise', 'The Loopbacks', 30_000],
  ['music', 'Midnight Drive', 'Null Route', 45_000],
  ['music', 'Golden Hour', 'The Loopbacks', 28_000],
  ['original_sound', 'Original audio', 'sandbox_creator', 15_000],
  ['original_sound', 'Beach sounds', 'sandbox_waves', 20_000],
].map(([type, title, by, ms]) => ({
  audio_id: stableId(`ig-audio-${title}`),
  audio_type: type as AudioAsset['audio_type'],
  title: title as string,
  duration_in_ms: ms as number,
  ...(type === 'music' ? { display_artist: by as string } : { ig_username: by as string }),
}));

function wireAudio(a: AudioAsset): Record<string, unknown> {
  const music = a.audio_type === 'music';
  return {
    ...a,
    ...(music
      ? { cover_artwork_thumbnail_url: `https://scontent.cdninstagram.com/audio/${a.audio_id}.jpg` }
      : { profile_picture_url: `https://scontent.cdninstagram.com/${a.ig_username}.jpg` }),
    download_url: `https://scontent.cdninstagram.com/audio/${a.audio_id}.m4a`,
    is_ads_eligible: music,
    on_platform_audio_preview_link: `https://www.instagram.com/reels/audio/${a.audio_id}/`,
  };
}

/** Everyone who wrote to or commented on an IG user: their id, and whether they messaged it. */
function peopleOf(state: SimulatorState, igUserId: string): Map<string, { person: IgPerson; messaged: boolean }> {
  const out = new Map<string, { person: IgPerson; messaged: boolean }>();
  for (const o of world(state).objects.values()) {
    if (o.ownerId !== igUserId || o.deleted) continue;
    if (o.type === 'IGComment') {
      const from = o.data.from as IgPerson;
      if (from.id !== igUserId && !out.has(from.id)) out.set(from.id, { person: from, messaged: false });
    }
    if (o.type === 'UnifiedThread' && (o.data.messages as unknown[]).length)
      out.set((o.data.participant as IgPerson).id, { person: o.data.participant as IgPerson, messaged: true });
  }
  return out;
}

const pick = (item: Record<string, unknown>, fields: string[]) =>
  Object.fromEntries(Object.entries(item).filter(([k, v]) => (k === 'id' || fields.includes(k)) && v !== undefined));

function requested(value: unknown, allowed: string[], reply: FastifyReply): string[] | null {
  const fields = String(value ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  const unknown = fields.find((f) => f !== 'id' && !allowed.includes(f));
  if (!unknown) return fields;
  graphError(reply, 400, { message: `(#100) Tried accessing nonexisting field (${unknown})`, code: 100 });
  return null;
}

function profile(
  state: SimulatorState,
  token: GraphToken,
  id: string,
  params: Record<string, unknown>,
  reply: FastifyReply,
): unknown {
  const igUserId =
    token.kind === 'instagram' ? token.igUserId! : token.pageId && world(state).pages.get(token.pageId)?.igUserId;
  const known = igUserId ? peopleOf(state, igUserId).get(id) : undefined;
  if (!known) return undefined;
  if (!igUserId || !actsFor(state, token, igUserId))
    return graphError(reply, 400, { message: '(#10) Application does not have permission for this action', code: 10 });
  const fields = requested(params.fields, PROFILE_FIELDS, reply);
  if (!fields) return reply;
  if (sendGraphFault(reply, state.faults.take('lookup'))) return reply;
  if (!known.messaged)
    return graphError(reply, 400, { message: 'User consent is required to access user profile', code: 230 });
  const p = known.person;
  const f = followsOf(state).get(`${igUserId}:${p.id}`);
  return pick(
    {
      id: p.id,
      name: p.username,
      username: p.username,
      profile_pic: `https://scontent.cdninstagram.com/${p.username}.jpg`,
      follower_count: 100 + (Number(BigInt(p.id) % 900n) || 0),
      is_user_follow_business: f?.follows === true,
      is_business_follow_user: f?.followedBack === true,
      is_verified_user: false,
    },
    fields.length ? fields : ['name', 'profile_pic'],
  );
}

function audio(
  state: SimulatorState,
  token: GraphToken,
  id: string | null,
  params: Record<string, unknown>,
  reply: FastifyReply,
): unknown {
  const bad = (message: string) => graphError(reply, 400, { message: `(#100) ${message}`, code: 100 });
  const userId = typeof params.user_id === 'string' ? params.user_id : '';
  if (!userId) return bad('The parameter user_id is required');
  if (token.kind !== 'user')
    return graphError(reply, 400, {
      message: '(#10) The Audio API takes a User access token from Facebook Login',
      code: 10,
    });
  if (!actsFor(state, token, userId))
    return graphError(reply, 400, { message: '(#10) Application does not have permission for this action', code: 10 });
  if (sendGraphFault(reply, state.faults.take('lookup'))) return reply;
  if (id !== null) {
    const fields = requested(params.fields, AUDIO_FIELDS, reply);
    if (!fields) return reply;
    const one = CATALOGUE.find((a) => a.audio_id === id)!;
    return pick({ id: one.audio_id, ...wireAudio(one) }, fields.length ? fields : AUDIO_FIELDS);
  }
  const type = params.audio_type;
  if (type === undefined) return bad('The parameter audio_type is required');
  if (type !== 'music' && type !== 'original_sound')
    return bad('Param audio_type must be one of {music, original_sound}');
  const q = typeof params.search_query === 'string' ? params.search_query.trim().toLowerCase() : '';
  const found = CATALOGUE.filter(
    (a) =>
      a.audio_type === type &&
      (!q || [a.title, a.display_artist ?? '', a.ig_username ?? ''].some((s) => s.toLowerCase().includes(q))),
  );
  return { data: found.map(wireAudio) };
}

/** The User Profile and Audio API paths (`unlisted`); undefined for any other path. */
export async function instagramExtras(
  state: SimulatorState,
  parts: string[],
  request: FastifyRequest,
  reply: FastifyReply,
  now: number,
): Promise<unknown> {
  if (request.method !== 'GET' || parts.length !== 1) return undefined;
  const [id] = parts;
  const isAudio = id === 'ig_audio' || CATALOGUE.some((a) => a.audio_id === id);
  if (!isAudio && !/^\d+$/.test(id)) return undefined;
  const { params } = await readParams(request);
  const token = liveToken(state, bearer(request, params), now);
  // Without a live token the router answers as for any node (codes 2500 / 190).
  if (!token) return undefined;
  if (isAudio) return audio(state, token, id === 'ig_audio' ? null : id, params, reply);
  return profile(state, token, id, params, reply);
}
