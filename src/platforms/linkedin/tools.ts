import { Type } from '@sinclair/typebox';
import { platformTool } from '../tools.js';
import { LINKEDIN_ANALYTICS_TOOLS } from './analytics-tools.js';
import type { LinkedInAdapter } from './index.js';
import { LINKEDIN_ORG_INSIGHTS_TOOLS } from './org-insights-tools.js';

const NullableString = Type.Union([Type.String(), Type.Null()]);

/** GET /v1/accounts/{accountId}/linkedin-mentions: a profile or company URL (or vanity name) as a mention. */
const mentions = platformTool<LinkedInAdapter>()({
  method: 'GET',
  path: 'linkedin-mentions',
  tags: ['Accounts'],
  summary: 'Resolve a LinkedIn profile or company to a mention',
  querystring: Type.Object({
    url: Type.String({ minLength: 1, maxLength: 500 }),
    displayName: Type.Optional(Type.String({ maxLength: 200 })),
  }),
  response: Type.Object({
    urn: Type.String(),
    type: Type.Union([Type.Literal('person'), Type.Literal('organization')]),
    displayName: Type.String(),
    mentionFormat: Type.String(),
    vanityName: Type.Optional(NullableString),
    warning: Type.Optional(NullableString),
  }),
  async handler({ adapter, account, query, io }) {
    return {
      body: await adapter.resolveMention(account!, { url: query.url, displayName: query.displayName ?? null }, io),
    };
  },
});

/** LinkedIn's own routes (platforms/tools.ts). */
export const LINKEDIN_TOOLS = [mentions, ...LINKEDIN_ANALYTICS_TOOLS, ...LINKEDIN_ORG_INSIGHTS_TOOLS];
