import { organizationStatistics, type LinkedInOrgStatistics } from './org-statistics.js';
import type { Config } from '../../config.js';
import { platformBaseUrl, platformSetting } from '../config.js';
import { readAtMost } from '../io.js';
import {
  PlatformError,
  type AccountCredentials,
  type PlatformAdapter,
  type PlatformIO,
  type ProcessingStarted,
  type PublishRequest,
  type PublishResult,
} from '../types.js';
import { linkedInAnalytics, linkedInInsights, type LinkedInInsights } from './analytics.js';
import { liRequest, type LinkedInOptions } from './api.js';
import { linkedInInbox } from './inbox.js';
import { uploadSingle, uploadVideo, videoStatus } from './media.js';
import { LINKEDIN_DEFAULT_SCOPES, linkedInOAuth } from './oauth.js';
import { linkedInDestinations, resolveMention, type MentionResolution } from './organizations.js';
import { MAX_IMAGES, TEXT } from './rules.js';
import { toLittleText } from './text.js';
import { textRuleError } from '../rules/text.js';

export type { LinkedInOptions } from './api.js';

/** A LinkedIn-Version that is live at the time of writing; set LINKEDIN_API_VERSION when it is sunset. */
const DEFAULT_LINKEDIN_VERSION = '202601';

function linkedInOptions(config: Config): LinkedInOptions {
  const scopes = config.env.LINKEDIN_SCOPES;
  return {
    apiUrl: platformBaseUrl(config, 'linkedin', 'https://api.linkedin.com'),
    authUrl: platformBaseUrl(config, 'linkedin', 'https://www.linkedin.com', 'AUTH'),
    clientId: platformSetting(config, 'linkedin', 'CLIENT_ID'),
    clientSecret: platformSetting(config, 'linkedin', 'CLIENT_SECRET'),
    version: config.env.LINKEDIN_API_VERSION || DEFAULT_LINKEDIN_VERSION,
    scopes: scopes ? scopes.split(/[ ,]+/).filter(Boolean) : LINKEDIN_DEFAULT_SCOPES,
  };
}

function token(account: AccountCredentials): string {
  if (!account.accessToken) throw new PlatformError('auth', 'the LinkedIn account has no access token');
  return account.accessToken;
}

/** Who posts: the target's organizationUrn, else the organization selected at connect, else the member. */
function authorUrn(req: PublishRequest): string {
  const explicit = req.platformSpecificData.organizationUrn ?? req.account.metadata.organizationUrn;
  if (typeof explicit === 'string' && explicit) {
    if (!/^urn:li:organization:\d+$/.test(explicit))
      throw new PlatformError('rejected', `organizationUrn "${explicit}" is not urn:li:organization:<id>`);
    return explicit;
  }
  return `urn:li:person:${req.account.platformUserId}`;
}

function postUrl(urn: string): string {
  return `https://www.linkedin.com/feed/update/${urn}`;
}

/** `<title>`/og:title of a page, for the article card of a link post. */
async function linkTitle(io: PlatformIO, url: string): Promise<string> {
  try {
    // A slow page must not hold the post back: three seconds, then the host name.
    const html = await Promise.race([
      // A tenant's link: read through the outbound guard (lib/outbound.ts), never an internal page.
      io.fetchUrl(url).then(async (res) => (await readAtMost(res, 100_000)).bytes.toString('utf8')),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 3000).unref()),
    ]);
    const og = /<meta[^>]+property=["']og:title["'][^>]+content=["']([^"']+)["']/i.exec(html)?.[1];
    const title = og ?? /<title[^>]*>([^<]+)<\/title>/i.exec(html)?.[1];
    if (title?.trim()) return title.trim().slice(0, 400);
  } catch {
    // No title: the host name stands in.
  }
  return new URL(url).hostname;
}

function checkMedia(req: PublishRequest): void {
  const kinds = new Set(req.media.map((m) => (m.type === 'gif' ? 'image' : m.type)));
  if (kinds.size > 1)
    throw new PlatformError('rejected', 'a LinkedIn post carries images, or one video, or one document, not a mix');
  const n = req.media.length;
  if (kinds.has('image') && n > MAX_IMAGES)
    throw new PlatformError('rejected', `a LinkedIn post carries at most ${MAX_IMAGES} images`);
  if ((kinds.has('video') || kinds.has('document')) && n > 1)
    throw new PlatformError('rejected', 'a LinkedIn post carries one video or one document');
}

/** The LinkedIn adapter: the capability groups, and what LinkedIn's own routes (tools.ts) call. */
export interface LinkedInAdapter extends PlatformAdapter {
  /** Resolves a profile/company URL or vanity name to a mention (GET /v1/accounts/{id}/linkedin-mentions). */
  resolveMention(
    account: AccountCredentials,
    query: { url: string; displayName?: string | null },
    io: PlatformIO,
  ): Promise<MentionResolution>;
  /** Post, member and reaction reads behind the LinkedIn analytics routes. */
  insights: LinkedInInsights;
  /** A page's statistics by day (posts, follower gains, page views) behind its account insights route. */
  organizationStatistics: LinkedInOrgStatistics;
}

export function createLinkedInAdapter(opts: LinkedInOptions): LinkedInAdapter {
  const oauth = linkedInOAuth(opts);

  function videoContent(req: PublishRequest, urn: string): Record<string, unknown> {
    return { media: { id: urn, ...(req.title ? { title: req.title } : {}) } };
  }

  async function buildContent(
    req: PublishRequest,
    io: PlatformIO,
    author: string,
  ): Promise<Record<string, unknown> | null> {
    const t = token(req.account);
    if (req.media.length === 0) {
      // LinkedIn does not scrape links posted through the API: the card is an explicit article.
      const url = /https?:\/\/[^\s<>"]+/.exec(req.content)?.[0]?.replace(/[.,:;!?)\]'"]+$/, '');
      if (!url || req.platformSpecificData.disableLinkPreview === true) return null;
      return { article: { source: url, title: await linkTitle(io, url) } };
    }
    const first = req.media[0];
    if (first.type === 'document') {
      const id = await uploadSingle(opts, io, t, author, first);
      const title = String(req.platformSpecificData.documentTitle ?? req.title ?? first.filename ?? 'Document');
      return { media: { id, title } };
    }
    if (first.type === 'video') return videoContent(req, await uploadVideo(opts, io, t, author, first));
    const images: { id: string; altText?: string }[] = [];
    for (const m of req.media) {
      const id = await uploadSingle(opts, io, t, author, m);
      images.push({ id, ...(m.altText ? { altText: m.altText.slice(0, 4086) } : {}) });
    }
    return images.length === 1 ? { media: images[0] } : { multiImage: { images } };
  }

  /** Creates the post (and its first comment, best effort) with `content` already uploaded. */
  async function createPost(
    req: PublishRequest,
    io: PlatformIO,
    author: string,
    content: Record<string, unknown> | null,
  ): Promise<PublishResult> {
    const { commentary } = toLittleText(req.content);
    const body: Record<string, unknown> = {
      author,
      commentary,
      visibility: 'PUBLIC',
      distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
      lifecycleState: 'PUBLISHED',
      isReshareDisabledByAuthor: false,
      ...(content ? { content } : {}),
    };
    if (io.signal?.aborted) throw new PlatformError('unavailable', 'publish cancelled before sending');
    const res = await liRequest(opts, io, {
      method: 'POST',
      url: `${opts.apiUrl}/rest/posts`,
      token: token(req.account),
      json: body,
      creates: true,
    });
    // 201 with an empty body: the post URN is in the x-restli-id header.
    const urn = res.headers.get('x-restli-id');
    if (!urn)
      throw new PlatformError('ambiguous', 'LinkedIn accepted the post but sent no x-restli-id', {
        endpoint: '/rest/posts',
        status: res.status,
      });
    const result: PublishResult = { platformPostId: urn, platformPostUrl: postUrl(urn) };

    // The first comment is best effort: the post is out, so a failure here must not fail the target (and
    // is never sent again); the target says what became of it.
    const firstComment = req.firstComment ?? (req.platformSpecificData.firstComment as string | undefined);
    if (firstComment) {
      try {
        const c = await liRequest(opts, io, {
          method: 'POST',
          url: `${opts.apiUrl}/rest/socialActions/${encodeURIComponent(urn)}/comments`,
          token: token(req.account),
          json: { actor: author, object: urn, message: { text: toLittleText(firstComment).commentary } },
        });
        result.firstComment = { status: 'posted', commentId: c.headers.get('x-restli-id') ?? c.body?.id ?? null };
      } catch (error) {
        result.firstComment = { status: 'failed', errorMessage: (error as Error).message };
      }
    }
    return result;
  }

  return {
    platform: 'linkedin',
    oauth,
    firstComments: true,

    /**
     * Uploads the media, then posts. A video LinkedIn is still processing is answered as such (its URN is
     * the handle): the engine asks `processing.check` later and `processing.finish` posts.
     */
    async publish(req, io): Promise<PublishResult | ProcessingStarted> {
      const tooLong = textRuleError(TEXT, req.content, 'the post');
      if (tooLong) throw new PlatformError('rejected', tooLong, { platformCode: 'text_too_long' });
      checkMedia(req);
      const author = authorUrn(req);
      const content = await buildContent(req, io, author);
      const video = req.media[0]?.type === 'video' ? String((content?.media as { id: string }).id) : null;
      if (video) {
        const state = await videoStatus(opts, io, token(req.account), video);
        if (state.state === 'failed')
          throw new PlatformError('rejected', state.reason, { platformCode: state.platformCode ?? null });
        if (state.state === 'processing') return { processing: { handle: { video }, waitMs: state.waitMs } };
      }
      return createPost(req, io, author, content);
    },

    processing: {
      check(handle, req, io) {
        return videoStatus(opts, io, token(req.account), String(handle.video));
      },
      finish(handle, req, io) {
        return createPost(req, io, authorUrn(req), videoContent(req, String(handle.video)));
      },
    },

    /** The author's recent posts (`q=author`), matched on the exact commentary Herald would have sent. */
    async findPublished(req, since, io) {
      const author = authorUrn(req);
      const res = await liRequest(opts, io, {
        method: 'GET',
        url: `${opts.apiUrl}/rest/posts?q=author&author=${encodeURIComponent(author)}&count=50&sortBy=CREATED`,
        token: token(req.account),
      });
      const want = toLittleText(req.content).commentary;
      const floor = since.getTime() - 5 * 60 * 1000;
      const posts: { id: string; commentary?: string; createdAt?: number; publishedAt?: number }[] =
        res.body?.elements ?? [];
      const match = posts
        .filter((p) => p.commentary === want && (p.createdAt ?? p.publishedAt ?? Infinity) >= floor)
        .sort((a, b) => (a.createdAt ?? 0) - (b.createdAt ?? 0))[0];
      return match ? { platformPostId: String(match.id), platformPostUrl: postUrl(String(match.id)) } : null;
    },

    async unpublish(account, platformPostId, io) {
      await liRequest(opts, io, {
        method: 'DELETE',
        url: `${opts.apiUrl}/rest/posts/${encodeURIComponent(platformPostId)}`,
        token: token(account),
      });
    },

    /**
     * The commentary only, as a partial update; the post keeps its URN and shows "edited". Media, polls,
     * articles and reshares cannot change. https://learn.microsoft.com/en-us/linkedin/marketing/community-management/shares/posts-api#update-posts
     */
    async editText(req, io) {
      const { commentary } = toLittleText(req.content);
      await liRequest(opts, io, {
        method: 'POST',
        url: `${opts.apiUrl}/rest/posts/${encodeURIComponent(req.platformPostId)}`,
        token: token(req.account),
        restliMethod: 'PARTIAL_UPDATE',
        json: { patch: { $set: { commentary } } },
      });
      return { platformPostId: req.platformPostId, platformPostUrl: req.platformPostUrl };
    },

    async refreshTokens(account, io) {
      // Only apps granted programmatic refresh get refresh tokens; the others must reconnect every 60 days.
      if (!account.refreshToken)
        throw new PlatformError('auth', 'the LinkedIn account has no refresh token; reconnect it', { revoked: true });
      return oauth.refresh(account.refreshToken, io);
    },

    destinations: linkedInDestinations(opts),
    analytics: linkedInAnalytics(opts),
    inbox: linkedInInbox(opts),
    insights: linkedInInsights(opts),
    organizationStatistics: organizationStatistics(opts),

    resolveMention(account, query, io) {
      return resolveMention(opts, io, account, query);
    },
  };
}

/** The LinkedIn adapter from configuration (LINKEDIN_API_URL, LINKEDIN_AUTH_URL, LINKEDIN_CLIENT_ID/SECRET, LINKEDIN_API_VERSION, LINKEDIN_SCOPES). */
export function linkedInAdapterFromConfig(config: Config): LinkedInAdapter {
  return createLinkedInAdapter(linkedInOptions(config));
}
