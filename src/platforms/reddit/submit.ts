import {
  PlatformError,
  type AccountCredentials,
  type PlatformIO,
  type PublishRequest,
  type PublishResult,
} from '../types.js';
import { postUrl, rdRequest, token, type RateWindows, type RedditOptions } from './api.js';
import { uploadMedia } from './media.js';
import { redditTitle, SELF_MAX, submissionKind, targetSubreddit, TITLE_MAX, type SubmissionKind } from './rules.js';

/*
 * Submissions (https://www.reddit.com/dev/api#POST_api_submit): `POST /api/submit` (form, `api_type=json`)
 * for text, link, image and video posts; `POST /api/submit_gallery_post.json` (JSON, undocumented, as
 * PRAW sends it) for galleries. Refusals come with HTTP 200 as `{json: {errors: [[CODE, message,
 * field]]}}`. A media submission's answer names no post (only where to watch for it): the post is then
 * found in the user's submitted listing.
 */

/** What a publish sends, settled once: title, subreddit, kind. */
export interface Submission {
  title: string;
  subreddit: string;
  kind: SubmissionKind;
  flairId: string | null;
}

export function submissionOf(req: PublishRequest): Submission {
  const psd = req.platformSpecificData;
  const title = redditTitle(psd, req.title, req.content);
  if (!title) throw new PlatformError('rejected', 'a Reddit post needs a title', { platformCode: 'NO_TEXT' });
  const subreddit = targetSubreddit(psd, req.account.metadata);
  if (!subreddit)
    throw new PlatformError('rejected', "no subreddit: set platformSpecificData.subreddit or the account's default", {
      platformCode: 'SUBREDDIT_REQUIRED',
    });
  const kind = submissionKind(psd, req.media);
  if (kind === 'self' && [...req.content].length > SELF_MAX) {
    throw new PlatformError(
      'rejected',
      `the text is ${[...req.content].length} characters; Reddit takes at most ${SELF_MAX}`,
      { platformCode: 'TOO_LONG' },
    );
  }
  return {
    title: [...title].slice(0, TITLE_MAX).join(''),
    subreddit,
    kind,
    flairId: typeof psd.flairId === 'string' && psd.flairId ? psd.flairId : null,
  };
}

/** A post of a listing (a `t3` thing's `data`): the fields read. */
export interface RedditPostJson {
  id: string;
  title?: string;
  subreddit?: string;
  created_utc?: number;
  is_self?: boolean;
  selftext?: string;
  url?: string;
  is_gallery?: boolean;
  permalink?: string;
}

/** `json.errors` as a PlatformError (null when there are none). */
export function refusal(body: unknown, sub: Pick<Submission, 'subreddit'>, endpoint: string): PlatformError | null {
  const listed = (body as { json?: { errors?: unknown } } | null)?.json?.errors;
  const errors: unknown[] = Array.isArray(listed) ? listed : [];
  if (errors.length === 0) return null;
  const [code, message] = (Array.isArray(errors[0]) ? errors[0] : []) as [string?, string?];
  const raw = JSON.stringify(body).slice(0, 2000);
  const text = errors
    .map((e) => (Array.isArray(e) ? `${e[0]}: ${e[1]}${e[2] ? ` (${e[2]})` : ''}` : String(e)))
    .join('; ');
  if (code === 'RATELIMIT') {
    // "you are doing that too much. try again in 5 minutes." (https://github.com/reddit-archive/reddit/wiki/API)
    const m = /(\d+)\s*(second|minute|hour)/i.exec(String(message));
    const unit = m ? { second: 1000, minute: 60_000, hour: 3_600_000 }[m[2].toLowerCase() as 'second'] : 0;
    return new PlatformError('rate_limited', `Reddit: ${text}`, {
      platformCode: code,
      endpoint,
      raw,
      retryAfterMs: m ? Number(m[1]) * unit : 60_000,
    });
  }
  if (code === 'SUBMIT_VALIDATION_FLAIR_REQUIRED') {
    return new PlatformError(
      'rejected',
      `r/${sub.subreddit} requires a post flair: set platformSpecificData.flairId (GET /v1/accounts/{accountId}/reddit-flairs?subreddit=${sub.subreddit} lists them). Reddit said: ${message}`,
      { platformCode: code, endpoint, raw },
    );
  }
  return new PlatformError('rejected', `Reddit refused the post in r/${sub.subreddit}: ${text}`, {
    platformCode: code ?? null,
    endpoint,
    raw,
  });
}

/** The user's newest submissions (`/user/{name}/submitted`, newest first). */
export async function submitted(
  opts: RedditOptions,
  windows: RateWindows,
  io: PlatformIO,
  account: AccountCredentials,
): Promise<RedditPostJson[]> {
  const res = await rdRequest(opts, windows, io, {
    method: 'GET',
    path: `/user/${encodeURIComponent(account.username)}/submitted?sort=new&limit=25&raw_json=1`,
    token: token(account),
    endpoint: '/user/{name}/submitted',
  });
  return ((res.body?.data?.children ?? []) as ({ data?: RedditPostJson } | null)[])
    .map((c) => c?.data)
    .filter((d): d is RedditPostJson => Boolean(d));
}

/** A post of the listing as a result. */
export const resultOf = (post: RedditPostJson): PublishResult => ({
  platformPostId: String(post.id),
  platformPostUrl: post.permalink ? postUrl(post.permalink) : null,
});

/** Whether a listed post is the one `req` made, submitted since `since`. */
export function matches(
  post: RedditPostJson,
  req: PublishRequest,
  sub: Submission,
  since: Date,
  assetId?: string,
): boolean {
  if (post.title !== sub.title || String(post.subreddit).toLowerCase() !== sub.subreddit.toLowerCase()) return false;
  if (Number(post.created_utc) * 1000 < since.getTime() - 60_000) return false;
  if (sub.kind === 'self') return post.is_self === true && (post.selftext ?? '') === req.content;
  if (sub.kind === 'link') return post.is_self === false && post.url === req.platformSpecificData.url;
  if (assetId && typeof post.url === 'string' && post.url.includes(assetId)) return true;
  return post.is_self === false && (sub.kind !== 'gallery' || post.is_gallery !== false);
}

/** `/api/submit` for a text, link, image or video post: the answer's `data`. */
export async function submitForm(
  opts: RedditOptions,
  windows: RateWindows,
  io: PlatformIO,
  req: PublishRequest,
  sub: Submission,
  extra: Record<string, string>,
): Promise<{ id?: string; name?: string; url?: string }> {
  const form: Record<string, string> = {
    api_type: 'json',
    sr: sub.subreddit,
    kind: sub.kind,
    title: sub.title,
    resubmit: 'true',
    sendreplies: 'true',
    ...(sub.flairId ? { flair_id: sub.flairId } : {}),
    ...extra,
  };
  const res = await rdRequest(opts, windows, io, {
    method: 'POST',
    path: '/api/submit',
    token: token(req.account),
    form,
    creates: true,
  });
  const refused = refusal(res.body, sub, '/api/submit');
  if (refused) throw refused;
  return res.body?.json?.data ?? {};
}

/** A gallery: every image uploaded, then `/api/submit_gallery_post.json`. */
export async function submitGallery(
  opts: RedditOptions,
  windows: RateWindows,
  io: PlatformIO,
  req: PublishRequest,
  sub: Submission,
): Promise<PublishResult> {
  const items = [];
  for (const media of req.media) {
    if (media.type === 'video')
      throw new PlatformError('rejected', 'a Reddit gallery holds images only', { platformCode: 'media_kind' });
    const asset = await uploadMedia(opts, windows, io, token(req.account), media);
    // Captions are at most 180 characters (Reddit's gallery editor).
    items.push({
      media_id: asset.assetId,
      caption: [...(media.altText ?? '')].slice(0, 180).join(''),
      outbound_url: '',
    });
  }
  const res = await rdRequest(opts, windows, io, {
    method: 'POST',
    path: '/api/submit_gallery_post.json',
    token: token(req.account),
    json: {
      api_type: 'json',
      sr: sub.subreddit,
      title: sub.title,
      items,
      kind: 'self',
      nsfw: false,
      spoiler: false,
      sendreplies: true,
      show_error_list: true,
      validate_on_submit: true,
      ...(sub.flairId ? { flair_id: sub.flairId } : {}),
    },
    creates: true,
  });
  const refused = refusal(res.body, sub, '/api/submit_gallery_post.json');
  if (refused) throw refused;
  const data = res.body?.json?.data ?? {};
  // NOTE: this answer's `id` is the fullname (`t3_huw6vs`), unlike /api/submit's (recorded test_submit_gallery).
  const id = String(data.id ?? '').replace(/^t3_/, '');
  if (!id)
    throw new PlatformError('ambiguous', 'Reddit accepted the gallery without naming it', {
      endpoint: '/api/submit_gallery_post.json',
      raw: res.raw.slice(0, 2000),
    });
  return { platformPostId: id, platformPostUrl: typeof data.url === 'string' ? data.url : null };
}
