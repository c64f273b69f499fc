import { PlatformError, type AccountCredentials, type PlatformIO } from '../types.js';
import { bareSubreddit, rdRequest, token, type RateWindows, type RedditOptions } from './api.js';
import { refusal } from './submit.js';

/*
 * Reddit calls of the hosted API's later tools: a subreddit's rules (GET /r/{sr}/about/rules, scope
 * `read`), a vote (POST /api/vote, scope `vote`) and a post's flair (POST /r/{sr}/api/selectflair,
 * scope `flair`). https://www.reddit.com/dev/api
 */

export interface SubredditRule {
  kind: string;
  shortName: string;
  description: string;
  violationReason: string;
  createdUtc: number;
  priority: number;
}

/** A thing's fullname: `t1_`/`t3_` kept, a bare id taken as a post (`t3_`), as the hosted API documents. */
function fullname(thingId: string): string {
  const id = thingId.trim();
  return /^t[13]_/.test(id) ? id : `t3_${id}`;
}

export function redditEngagement(opts: RedditOptions, windows: RateWindows) {
  return {
    async subredditRules(
      account: AccountCredentials,
      name: string,
      io: PlatformIO,
    ): Promise<{ rules: SubredditRule[]; siteRules: string[] }> {
      const sr = encodeURIComponent(bareSubreddit(name));
      const res = await rdRequest(opts, windows, io, {
        method: 'GET',
        path: `/r/${sr}/about/rules?raw_json=1`,
        token: token(account),
        endpoint: '/r/{sr}/about/rules',
      });
      // A rule of `/r/{sr}/about/rules`: every field is read through String or Number.
      const rules = (Array.isArray(res.body?.rules) ? res.body.rules : []) as Record<string, unknown>[];
      return {
        rules: rules.map((r) => ({
          kind: String(r.kind ?? 'all'),
          shortName: String(r.short_name ?? ''),
          description: String(r.description ?? ''),
          violationReason: String(r.violation_reason ?? r.short_name ?? ''),
          createdUtc: Number(r.created_utc ?? 0),
          priority: Number(r.priority ?? 0),
        })),
        siteRules: (Array.isArray(res.body?.site_rules) ? res.body.site_rules : []).map(String),
      };
    },

    /** Reddit answers `{}`; a refused vote (archived post, unknown thing) is an HTTP error. */
    async vote(account: AccountCredentials, thingId: string, direction: 1 | 0 | -1, io: PlatformIO): Promise<void> {
      await rdRequest(opts, windows, io, {
        method: 'POST',
        path: '/api/vote',
        token: token(account),
        form: { id: fullname(thingId), dir: String(direction) },
      });
    },

    /** Refusals come as HTTP 200 with `json.errors` (like submit). */
    async selectFlair(
      account: AccountCredentials,
      p: { subreddit: string; postId: string; flairTemplateId: string; text?: string },
      io: PlatformIO,
    ): Promise<void> {
      const sr = bareSubreddit(p.subreddit);
      const form: Record<string, string> = {
        api_type: 'json',
        link: `t3_${p.postId.replace(/^t3_/, '')}`,
        flair_template_id: p.flairTemplateId,
      };
      if (p.text !== undefined) form.text = p.text;
      const res = await rdRequest(opts, windows, io, {
        method: 'POST',
        path: `/r/${encodeURIComponent(sr)}/api/selectflair`,
        token: token(account),
        form,
        endpoint: '/r/{sr}/api/selectflair',
      });
      const refused = refusal(res.body, { subreddit: sr }, '/r/{sr}/api/selectflair');
      if (refused) throw refused;
      if (res.body?.json === undefined && res.body && typeof res.body === 'object' && Object.keys(res.body).length) {
        throw new PlatformError('ambiguous', 'Reddit answered the flair change in an unknown shape', {
          endpoint: '/r/{sr}/api/selectflair',
        });
      }
    },
  };
}

export type RedditEngagement = ReturnType<typeof redditEngagement>;
