import { Type } from '@sinclair/typebox';
import { accountSettingTools, type AccountSetting } from '../settings.js';
import type { AccountCredentials } from '../types.js';
import { graph, graphBase, type InstagramOptions } from './api.js';
import type { IgInboxAccess } from './inbox.js';

/*
 * `instagram-ice-breakers`: the questions a person can tap to start a conversation with the account,
 * through the Messenger Profile API for Instagram
 * (https://developers.facebook.com/docs/messenger-platform/instagram/features/ice-breakers):
 * `GET|POST|DELETE /{ig-user-id}/messenger_profile`. The API takes them per locale
 * (`ice_breakers: [{locale, call_to_actions: [{question, payload}]}]`, 1 to 4 a locale); the hosted API's
 * contract takes one flat list of at most 4 `{question ≤ 80, payload}`, which Herald sends as the default
 * locale's, and reads back the same way.
 */

const MAX = 4;
const QUESTION_MAX = 80;

export function iceBreakers(
  opts: InstagramOptions,
  access: (account: AccountCredentials) => IgInboxAccess,
): AccountSetting {
  const base = graphBase(opts);
  return {
    check(items) {
      const problems: Record<string, string[]> = {};
      items.forEach((item, i) => {
        if (typeof item.question !== 'string' || !item.question.trim() || [...item.question].length > QUESTION_MAX)
          problems[`ice_breakers[${i}].question`] = [`must be 1-${QUESTION_MAX} characters`];
        if (typeof item.payload !== 'string' || !item.payload)
          problems[`ice_breakers[${i}].payload`] = ['must be a non-empty string'];
      });
      return problems;
    },
    async get(account, io) {
      const a = access(account);
      const res = await graph(io, {
        method: 'GET',
        url: `${base}/${a.igUserId}/messenger_profile?fields=ice_breakers`,
        token: a.token,
      });
      const locales: { locale?: string; call_to_actions?: Record<string, unknown>[] }[] =
        res.body?.data?.[0]?.ice_breakers ?? [];
      const chosen = locales.find((l) => (l.locale ?? 'default') === 'default') ?? locales[0];
      return Array.isArray(chosen?.call_to_actions) ? chosen.call_to_actions : [];
    },
    async set(account, items, io) {
      const a = access(account);
      const call_to_actions = items.map((i) => ({ question: i.question, payload: i.payload }));
      await graph(io, {
        method: 'POST',
        url: `${base}/${a.igUserId}/messenger_profile`,
        token: a.token,
        json: { ice_breakers: [{ locale: 'default', call_to_actions }] },
      });
    },
    async clear(account, io) {
      const a = access(account);
      await graph(io, {
        method: 'DELETE',
        url: `${base}/${a.igUserId}/messenger_profile?fields=${encodeURIComponent('["ice_breakers"]')}`,
        token: a.token,
      });
    },
  };
}

/** GET, PUT and DELETE /v1/accounts/{accountId}/instagram-ice-breakers. */
export const INSTAGRAM_TOOLS = accountSettingTools({
  path: 'instagram-ice-breakers',
  key: 'ice_breakers',
  item: Type.Object({ question: Type.String(), payload: Type.String() }, { additionalProperties: true }),
  what: 'the Instagram ice breakers',
  maxItems: MAX,
});
