import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { OAuthSim } from '../oauth.js';
import type { DiscoveryParameter } from '../discovery.js';
import { hangUp, type SimulatorState } from '../types.js';
import { PERFORMANCE } from './discovery.js';
import { gbpError, locationFor, sendFault, userFor } from './store.js';

/*
 * Business Profile Performance API, `locations.searchkeywords.impressions.monthly.list`
 * (GET /v1/locations/{id}/searchkeywords/impressions/monthly), held to the discovery document
 * (businessprofileperformance-v1.json): only the method's query parameters (camelCase or snake_case),
 * `monthlyRange` required (year and month of both ends; the day is not significant), start not after
 * end, no month after the current one and none more than 18 months back (Google keeps 18 months of
 * these numbers), `pageSize` 0 to 100 (0 or absent: 100) and `pageToken` one this method gave. Each
 * keyword's `insightsValue` is the sum over the months asked; a sum under the privacy threshold is sent
 * as `threshold` instead, as Google does. The numbers are a pure function of location, keyword and month
 * (`keywordMonthlyValue`). Fault op `insights`.
 * https://developers.google.com/my-business/reference/performance/rest/v1/locations.searchkeywords.impressions.monthly/list
 */

const SCOPE = 'https://www.googleapis.com/auth/business.manage';
const METHOD = 'locations.searchkeywords.impressions.monthly.list';
const PAGE = 100;
/** How many months back Google keeps search keyword impressions. */
const KEYWORD_MONTHS = 18;
/** Below this many impressions a keyword is reported as `threshold`, not as its value. */
export const KEYWORD_THRESHOLD = 15;

const WHAT = [
  'coffee',
  'espresso',
  'bakery',
  'breakfast',
  'brunch',
  'cafe',
  'pastries',
  'latte',
  'tea',
  'cake',
  'wifi cafe',
  'croissant',
];
const WHERE = [
  'near me',
  'downtown',
  'open now',
  'best',
  'cheap',
  'organic',
  'vegan',
  'takeaway',
  'delivery',
  'late night',
  'family',
  'quiet',
];

/** The keywords searched for the sandbox's locations: 144, enough to fill more than one page. */
const SANDBOX_KEYWORDS = WHAT.flatMap((w) => WHERE.map((q) => (q === 'best' ? `best ${w}` : `${w} ${q}`)));

/** Unique users who searched `keyword` and saw the location in one month (`YYYY-MM`): deterministic. */
function keywordMonthlyValue(locationId: string, keyword: string, month: string): number {
  const h = createHash('sha256').update(`${locationId}:${keyword}:${month}`).digest();
  return (h[0]! % 40) + (h[1]! % 3 === 0 ? 0 : h[2]! % 60);
}

/** The whole answer before paging, as the simulator sends it: each keyword's sum, most searched first. */
export function keywordCounts(
  locationId: string,
  months: string[],
): { searchKeyword: string; insightsValue: { value?: string; threshold?: string } }[] {
  return SANDBOX_KEYWORDS.map((searchKeyword) => ({
    searchKeyword,
    sum: months.reduce((s, m) => s + keywordMonthlyValue(locationId, searchKeyword, m), 0),
  }))
    .sort((a, b) => b.sum - a.sum || (a.searchKeyword < b.searchKeyword ? -1 : 1))
    .map(({ searchKeyword, sum }) => ({
      searchKeyword,
      insightsValue: sum < KEYWORD_THRESHOLD ? { threshold: String(KEYWORD_THRESHOLD) } : { value: String(sum) },
    }));
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
const protoPath = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const bind = (name: string) =>
  `Invalid JSON payload received. Unknown name "${name}": Cannot bind query parameter. Field '${name}' could not be found in request message.`;
const monthIndex = (y: number, m: number) => y * 12 + (m - 1);
const monthName = (i: number) => `${Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`;

export function registerSearchKeywords(
  app: FastifyInstance,
  state: SimulatorState,
  oauth: OAuthSim,
  now: () => number,
): void {
  const invalid = (reply: FastifyReply, message: string, field?: string) => gbpError(reply, 400, message, field);

  app.get('/v1/locations/:l(^\\d+)/searchkeywords/impressions/monthly', async (request, reply) => {
    const params: Record<string, DiscoveryParameter | undefined> = {
      ...PERFORMANCE.document.parameters,
      ...PERFORMANCE.method(METHOD).parameters,
    };
    const q: Record<string, string> = {};
    for (const [raw, value] of Object.entries(request.query as Record<string, string | string[]>)) {
      const name = raw.includes('_') && !raw.startsWith('$') ? raw.split('.').map(camel).join('.') : raw;
      const p = params[name];
      if (!p || p.location !== 'query') return invalid(reply, bind(raw));
      if (Array.isArray(value))
        return invalid(reply, `Invalid value at '${protoPath(name)}': only one value is allowed.`, protoPath(name));
      if (p.type === 'integer' && !/^-?\d+$/.test(value))
        return invalid(reply, `Invalid value at '${protoPath(name)}' (TYPE_INT32), "${value}"`, protoPath(name));
      q[name] = value;
    }
    const user = userFor(request, reply, oauth);
    if (!user) return reply;
    if (!(oauth.scopesFor(request.headers.authorization) ?? []).includes(SCOPE))
      return gbpError(reply, 403, 'Request had insufficient authentication scopes.');
    const end = (which: 'startMonth' | 'endMonth'): number | string => {
      const y = q[`monthlyRange.${which}.year`];
      const m = q[`monthlyRange.${which}.month`];
      if (y === undefined || m === undefined) return `monthly_range.${protoPath(which)} is required`;
      if (Number(y) < 1 || Number(y) > 9999 || Number(m) < 1 || Number(m) > 12)
        return `monthly_range.${protoPath(which)} is not a valid month`;
      return monthIndex(Number(y), Number(m));
    };
    const start = end('startMonth');
    const last = end('endMonth');
    for (const v of [start, last])
      if (typeof v === 'string') return invalid(reply, `Request contains an invalid argument: ${v}.`, 'monthly_range');
    const from = start as number;
    const to = last as number;
    const today = new Date(now());
    const current = monthIndex(today.getUTCFullYear(), today.getUTCMonth() + 1);
    if (from > to)
      return invalid(reply, 'Request contains an invalid argument: start month is after end month.', 'monthly_range');
    if (to > current)
      return invalid(reply, 'Request contains an invalid argument: end month is in the future.', 'monthly_range');
    if (from < current - KEYWORD_MONTHS)
      return invalid(
        reply,
        `Request contains an invalid argument: start month is more than ${KEYWORD_MONTHS} months ago.`,
        'monthly_range',
      );
    const size = q.pageSize === undefined ? 0 : Number(q.pageSize);
    if (size < 0)
      return invalid(reply, 'Request contains an invalid argument: page_size must not be negative.', 'page_size');
    const offset = q.pageToken === undefined ? 0 : Number(Buffer.from(q.pageToken, 'base64').toString('utf8'));
    if (!Number.isInteger(offset) || offset < 0 || (q.pageToken !== undefined && offset === 0))
      return invalid(reply, 'Request contains an invalid argument: page_token is not valid.', 'page_token');
    const loc = locationFor(state, reply, user, (request.params as { l: string }).l);
    if (!loc) return reply;
    const fault = state.faults.take('insights');
    if (sendFault(reply, fault)) return reply;
    if (fault === 'ambiguous') return hangUp(reply);

    const months: string[] = [];
    for (let i = from; i <= to; i++) months.push(monthName(i));
    const all = keywordCounts(loc.id, months);
    const page = Math.min(size || PAGE, PAGE);
    const next = offset + page;
    return PERFORMANCE.checked(
      'ListSearchKeywordImpressionsMonthlyResponse',
      {
        searchKeywordsCounts: all.slice(offset, next),
        ...(next < all.length ? { nextPageToken: Buffer.from(String(next)).toString('base64') } : {}),
      },
      'Google Business',
    );
  });
}
