import type { AppContext } from '../../context.js';
import { invalidFields } from '../../errors.js';
import { conversationsByIds, searchConversations } from '../../store/inbox/message-actions.js';
import type { Principal } from '../principal.js';
import { inboxAccounts, inboxOf } from './access.js';
import { listMeta } from './list-meta.js';

/*
 * GET /inbox/conversations/search: conversations whose messages hold every word of the query (whole
 * words, case- and accent-insensitive), or whose participant's name, username or id contains it; a
 * conversation matching both ways once, with its message matches; most recent match first. Every
 * platform Herald stores messages of is searchable, so `accountsSkipped` is always empty.
 */

/** How many matching messages a search looks at; more recent ones first. */
const SCAN = 2_000;

const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
const words = (s: string) =>
  fold(s)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

const decodeOffset = (cursor: string | undefined): number => {
  if (!cursor) return 0;
  const n = Number(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!Number.isInteger(n) || n < 0) throw invalidFields('Invalid cursor', { cursor: ['not a cursor of this search'] });
  return n;
};

export async function searchInboxConversations(
  ctx: AppContext,
  caller: Principal,
  q: {
    query: string;
    accountId?: string;
    profileId?: string;
    platform?: string;
    direction?: 'incoming' | 'outgoing';
    limit?: number;
    cursor?: string;
  },
) {
  const terms = words(q.query);
  if (!terms.length) throw invalidFields('query must contain a word', { query: ['no searchable word'] });
  const accounts = (await inboxAccounts(ctx, caller, q)).filter((a) => inboxOf(ctx, a.platform)?.conversations);
  const limit = q.limit ?? 20;
  const offset = decodeOffset(q.cursor);
  // The longest word narrows the rows in SQL; every word must then be a whole word of the message.
  const needle = [...terms].sort((a, b) => b.length - a.length)[0];
  const found = await searchConversations(ctx.db.kysely, {
    tenantId: caller.tenantId,
    accountIds: accounts.map((a) => a.account_id),
    needle: q.query.trim().length <= 200 ? needle : needle.slice(0, 200),
    direction: q.direction,
    limit: SCAN,
  });
  const hits = new Map<string, { at: string; matches: typeof found.byMessage }>();
  for (const m of found.byMessage) {
    const ws = new Set(words(m.text ?? ''));
    if (!terms.every((t) => ws.has(t))) continue;
    const hit = hits.get(m.conv) ?? { at: m.sent_at, matches: [] };
    hit.matches.push(m);
    hits.set(m.conv, hit);
  }
  const contactIds = found.byContact.map((c) => c.conversation_id).filter((id) => !hits.has(id));
  const rows = new Map(
    [...(await conversationsByIds(ctx.db.kysely, [...hits.keys()])), ...found.byContact].map((c) => [
      c.conversation_id,
      c,
    ]),
  );
  const ordered = [
    ...[...hits.entries()].map(([id, h]) => ({ id, at: h.at, matches: h.matches })),
    ...contactIds.map((id) => ({ id, at: rows.get(id)!.last_message_at, matches: [] as typeof found.byMessage })),
  ].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : a.id < b.id ? 1 : -1));
  const page = ordered.slice(offset, offset + limit);
  const hasMore = ordered.length > offset + limit;
  return {
    data: page.map((h) => {
      const c = rows.get(h.id)!;
      return {
        conversation: {
          id: c.platform_conversation_id,
          platform: c.platform,
          accountId: c.account_id,
          participantName: c.participant_name,
          participantUsername: c.participant_username,
          participantPicture: c.participant_picture,
          status: c.status as 'active' | 'archived',
          lastMessage: c.last_message,
          lastMessageAt: c.last_message_at,
        },
        matchCount: h.matches.length,
        matches: h.matches.slice(0, 3).map((m) => ({
          id: m.platform_message_id,
          text: m.text,
          direction: m.direction as 'incoming' | 'outgoing',
          timestamp: m.sent_at,
        })),
      };
    }),
    pagination: {
      hasMore,
      nextCursor: hasMore ? Buffer.from(String(offset + limit)).toString('base64url') : null,
    },
    meta: { ...(await listMeta(ctx, accounts)), accountsSkipped: [] },
  };
}
