import { Type } from '@sinclair/typebox';
import { invalid } from '../../errors.js';
import { platformTool } from '../tools.js';
import { gbpRequest, token } from './api.js';
import type { GoogleBusinessAdapter } from './index.js';

/*
 * GET /v1/analytics/googlebusiness/search-keywords: the searches that showed the account's location, from
 * the Business Profile Performance API's `locations.searchkeywords.impressions.monthly.list`
 * (https://developers.google.com/my-business/reference/performance/rest/v1/locations.searchkeywords.impressions.monthly/list,
 * scope business.manage). Google sums each keyword's monthly unique users over the months asked and
 * hides a small sum behind `threshold`: such keywords are left out, as the hosted API does. Every page
 * (100 keywords at most) is read, up to MAX_PAGES.
 */

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
/** Google keeps 18 months of search keyword impressions; an older start month is refused. */
const MAX_MONTHS = 18;
const PAGE = 100;
/** Pages one answer reads at most (1,000 keywords). */
const MAX_PAGES = 10;

const index = (y: number, m: number) => y * 12 + (m - 1);

function month(value: string | undefined, field: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const m = MONTH.exec(value);
  if (!m)
    throw invalid('invalid_date', `Invalid ${field} format. Use YYYY-MM.`, {
      fields: { [field]: ['must be a month (YYYY-MM)'] },
    });
  return index(Number(m[1]), Number(m[2]));
}

const name = (i: number) => `${Math.floor(i / 12)}-${String((i % 12) + 1).padStart(2, '0')}`;

interface KeywordPage {
  searchKeywordsCounts?: { searchKeyword?: unknown; insightsValue?: { value?: unknown; threshold?: unknown } }[];
  nextPageToken?: unknown;
}

const searchKeywords = platformTool<GoogleBusinessAdapter>()({
  method: 'GET',
  path: '/analytics/googlebusiness/search-keywords',
  account: 'query',
  addon: 'analytics',
  tags: ['Analytics'],
  summary: 'Get Google Business Profile search keywords',
  querystring: Type.Object({
    startMonth: Type.Optional(Type.String({ maxLength: 16 })),
    endMonth: Type.Optional(Type.String({ maxLength: 16 })),
  }),
  response: Type.Object({
    success: Type.Boolean(),
    accountId: Type.String(),
    platform: Type.String(),
    monthRange: Type.Object({ startMonth: Type.String(), endMonth: Type.String() }),
    keywords: Type.Array(Type.Object({ keyword: Type.String(), impressions: Type.Integer() })),
    note: Type.String(),
  }),
  async handler({ adapter, account, query, io }) {
    const now = io.now();
    const current = index(now.getUTCFullYear(), now.getUTCMonth() + 1);
    const end = month(query.endMonth, 'endMonth', current);
    const start = month(query.startMonth, 'startMonth', end - 3);
    if (start > end)
      throw invalid('invalid_date_range', 'startMonth must not be after endMonth', {
        fields: { startMonth: ['must not be after endMonth'] },
      });
    if (end > current)
      throw invalid('invalid_date_range', 'endMonth must not be after the current month', {
        fields: { endMonth: ['must not be in the future'] },
      });
    if (start < current - MAX_MONTHS)
      throw invalid('invalid_date_range', `Google keeps search keywords for ${MAX_MONTHS} months`, {
        fields: { startMonth: [`must be within ${MAX_MONTHS} months of the current month`] },
      });

    const where = await adapter.resolveLocation(account!, undefined, io);
    const q = new URLSearchParams();
    for (const [which, i] of [
      ['startMonth', start],
      ['endMonth', end],
    ] as const) {
      q.set(`monthlyRange.${which}.year`, String(Math.floor(i / 12)));
      q.set(`monthlyRange.${which}.month`, String((i % 12) + 1));
    }
    q.set('pageSize', String(PAGE));
    const keywords: { keyword: string; impressions: number }[] = [];
    for (let page = 0; page < MAX_PAGES; page++) {
      const res = await gbpRequest(io, {
        method: 'GET',
        url: `${adapter.options.performanceUrl}/v1/${where.v1}/searchkeywords/impressions/monthly?${q}`,
        token: token(account!),
      });
      const body = (res.body ?? {}) as KeywordPage;
      for (const k of body.searchKeywordsCounts ?? []) {
        // An int64 arrives as a string; a keyword under Google's threshold has no value at all.
        const value = Number(k?.insightsValue?.value);
        if (typeof k?.searchKeyword !== 'string' || k.insightsValue?.value === undefined || !Number.isFinite(value))
          continue;
        keywords.push({ keyword: k.searchKeyword, impressions: value });
      }
      if (typeof body.nextPageToken !== 'string' || !body.nextPageToken) break;
      q.set('pageToken', body.nextPageToken);
    }
    keywords.sort((a, b) => b.impressions - a.impressions);
    return {
      body: {
        success: true,
        accountId: account!.accountId,
        platform: 'googlebusiness',
        monthRange: { startMonth: name(start), endMonth: name(end) },
        keywords,
        note: 'Monthly unique users per keyword, summed over the months asked; keywords under the minimum Google reports are left out.',
      },
    };
  },
});

export const SEARCH_KEYWORD_TOOLS = [searchKeywords];
