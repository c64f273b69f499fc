import { PlatformError, type InboundMention, type InboxPerson } from '../types.js';
import type { LiResponse } from './api.js';
import { fromLittleText } from './text.js';

/*
 * Mentions of a company page, polled with the page's comments (inbox.ts). LinkedIn pushes them only
 * to a validated public HTTPS webhook, which a self-hosted install on loopback does not have, so
 * Herald pulls the same notifications from the criteria finder of Organization Social Action
 * Notifications:
 * https://learn.microsoft.com/en-us/linkedin/marketing/community-management/organizations/organization-social-action-notifications
 * - `GET /rest/organizationalEntityNotifications?q=criteria&organizationalEntity=<org urn>
 *   &actions=List(SHARE_MENTION)&timeRange=(start:<ms>,end:<ms>)&start&count`: needs
 *   `rw_organization_admin` and the ADMINISTRATOR role; notifications are kept 60 days. SHARE_MENTION
 *   is a post that mentions the page. The documented actions have none for a mention inside a
 *   comment, so those are not read.
 * - the mentioning post, `GET /rest/posts/{urn}` (Posts API): its `commentary` (little text, made
 *   plain by fromLittleText, mentions kept as `@[Name](urn)`), `author` and `publishedAt`.
 * - an author that is a page is named by `GET /rest/organizations/{id}`; a member is not (LinkedIn
 *   names members only through restricted people APIs), so `authorName` stays null for members.
 * NOTE: the docs do not say which field of a SHARE_MENTION names the mentioning post. `sourcePost` and
 * `generatedActivity` are both documented fields; the first of `generatedActivity`, `sourcePost` that
 * is a post URN (share or ugcPost) is taken. Nor do they give the finder's order or its largest
 * `count`: the poll pages with count 100 and does not rely on the order.
 */

/** Notifications a page and pages per poll at most. */
const PAGE = 100;
const MAX_PAGES = 5;
/** How long LinkedIn keeps a notification: the oldest start a window may have. */
const RETENTION_MS = 60 * 86_400_000;
/** How far the first poll of a page looks back (as its comments). */
const FIRST_LOOK_BACK_MS = 24 * 3_600_000;
/**
 * Each window starts this long before the last one ended: a notification LinkedIn records a little
 * after its post is still found (the docs give no delay). Storing a mention twice is one row.
 */
const OVERLAP_MS = 10 * 60_000;

interface LiNotificationJson {
  notificationId?: number;
  organizationalEntity?: string;
  action?: string;
  sourcePost?: string;
  generatedActivity?: string;
  lastModifiedAt?: number;
}

interface LiPostJson {
  id?: string;
  author?: string;
  commentary?: string;
  publishedAt?: number;
  createdAt?: number;
}

/** A GET of LinkedIn's REST API (path and query after the host), with the account's token. */
export type LiGet = (path: string) => Promise<LiResponse>;

// Rest.li 2.0 wants URNs in paths and keys fully encoded, parentheses too.
const enc = (urn: string) => encodeURIComponent(urn).replace(/\(/g, '%28').replace(/\)/g, '%29');
const isPost = (urn: unknown): urn is string => typeof urn === 'string' && /^urn:li:(share|ugcPost):/.test(urn);

/** A read LinkedIn refused with `status` (404: the post is gone; 403: a page this one may not look up). */
const refusedWith = (error: unknown, status: number) =>
  error instanceof PlatformError && error.kind === 'rejected' && error.status === status;

/**
 * The page's mentions in the window after `since` (epoch ms; null: the first poll), and where the
 * next window starts.
 */
export async function pollOrganizationMentions(
  get: LiGet,
  org: string,
  since: number | null,
  now: number,
): Promise<{ mentions: InboundMention[]; next: number }> {
  const start = Math.max(since ?? now - FIRST_LOOK_BACK_MS, now - RETENTION_MS + OVERLAP_MS);
  const found = new Map<string, LiNotificationJson>();
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await get(
      `/rest/organizationalEntityNotifications?q=criteria&organizationalEntity=${enc(org)}` +
        `&actions=List(SHARE_MENTION)&timeRange=(start:${start},end:${now})&start=${page * PAGE}&count=${PAGE}`,
    );
    const elements = (res.body?.elements ?? []) as LiNotificationJson[];
    for (const n of elements) {
      if (n.action !== 'SHARE_MENTION') continue;
      const urn = [n.generatedActivity, n.sourcePost].find(isPost);
      if (urn && !found.has(urn)) found.set(urn, n);
    }
    const total = Number(res.body?.paging?.total ?? NaN);
    if (elements.length < PAGE || (Number.isFinite(total) && (page + 1) * PAGE >= total)) break;
  }
  const mentions: InboundMention[] = [];
  const pages = new Map<string, InboxPerson>();
  for (const [urn, n] of found) {
    let post: LiPostJson;
    try {
      post = (await get(`/rest/posts/${enc(urn)}`)).body ?? {};
    } catch (error) {
      // Deleted since it mentioned the page: nothing to list.
      if (refusedWith(error, 404)) continue;
      throw error;
    }
    const authorUrn = typeof post.author === 'string' ? post.author : null;
    const author = authorUrn ? await authorOf(get, authorUrn, pages) : { id: null, name: null, username: null };
    const at = post.publishedAt ?? post.createdAt ?? n.lastModifiedAt ?? now;
    mentions.push({
      mentionId: urn,
      mediaId: urn,
      commentId: null,
      author,
      text: fromLittleText(post.commentary ?? ''),
      createdAt: new Date(at),
      url: `https://www.linkedin.com/feed/update/${urn}`,
      extra: {
        authorUrn,
        organizationalEntity: n.organizationalEntity ?? org,
        action: n.action,
        ...(n.notificationId !== undefined ? { notificationId: n.notificationId } : {}),
      },
    });
  }
  mentions.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  return { mentions, next: now - OVERLAP_MS };
}

/** The author as Herald shows people: a page by its name and vanity name, a member by URN alone. */
async function authorOf(get: LiGet, urn: string, pages: Map<string, InboxPerson>): Promise<InboxPerson> {
  const id = /^urn:li:organization:(\d+)$/.exec(urn)?.[1];
  if (!id) return { id: urn, name: null, username: null };
  const known = pages.get(urn);
  if (known) return known;
  let person: InboxPerson = { id: urn, name: null, username: null };
  try {
    const org = (await get(`/rest/organizations/${id}`)).body ?? {};
    person = {
      id: urn,
      name: typeof org.localizedName === 'string' ? org.localizedName : null,
      username: typeof org.vanityName === 'string' ? org.vanityName : null,
    };
  } catch (error) {
    // A page this one may not look up keeps its URN alone.
    if (!refusedWith(error, 403) && !refusedWith(error, 404)) throw error;
  }
  pages.set(urn, person);
  return person;
}
