import type { Config } from '../../config.js';
import { platformBaseUrl, platformSetting } from '../config.js';
import { textRuleError } from '../rules/text.js';
import {
  PlatformError,
  type AccountCredentials,
  type Destination,
  type PlatformAdapter,
  type PlatformIO,
  type PublishRequest,
  type PublishResult,
} from '../types.js';
import { bareLocationId, gbpRequest, token, type GoogleBusinessOptions } from './api.js';
import { editLocalPost } from './edit.js';
import { googleBusinessInbox } from './inbox.js';
import { GOOGLEBUSINESS_DEFAULT_SCOPES, googleBusinessOAuth, listAccounts } from './oauth.js';
import { imageUrlProblem, TEXT } from './rules.js';

export type { GoogleBusinessOptions } from './api.js';

export function googleBusinessOptions(config: Config): GoogleBusinessOptions {
  const scopes = config.env.GOOGLEBUSINESS_SCOPES;
  const url = (fallback: string, suffix: string) => platformBaseUrl(config, 'googlebusiness', fallback, suffix);
  return {
    authUrl: url('https://accounts.google.com', 'AUTH'),
    tokenUrl: url('https://oauth2.googleapis.com', 'TOKEN'),
    accountsUrl: url('https://mybusinessaccountmanagement.googleapis.com', 'ACCOUNTS'),
    infoUrl: url('https://mybusinessbusinessinformation.googleapis.com', 'INFO'),
    placeActionsUrl: url('https://mybusinessplaceactions.googleapis.com', 'PLACE_ACTIONS'),
    verificationsUrl: url('https://mybusinessverifications.googleapis.com', 'VERIFICATIONS'),
    performanceUrl: url('https://businessprofileperformance.googleapis.com', 'PERFORMANCE'),
    apiUrl: url('https://mybusiness.googleapis.com', 'API'),
    clientId: platformSetting(config, 'googlebusiness', 'CLIENT_ID'),
    clientSecret: platformSetting(config, 'googlebusiness', 'CLIENT_SECRET'),
    scopes: scopes ? scopes.split(/[ ,]+/).filter(Boolean) : GOOGLEBUSINESS_DEFAULT_SCOPES,
  };
}

/** Where a post or a tool call goes: the v4 parent `accounts/<a>/locations/<l>` and the v1 name `locations/<l>`. */
interface ResolvedLocation {
  /** `accounts/<a>` */
  account: string;
  /** The bare number. */
  locationId: string;
  v4: string;
  v1: string;
}

export interface GoogleBusinessAdapter extends PlatformAdapter {
  readonly options: GoogleBusinessOptions;
  /** The account's selected location, or `locationId` (`locations/<n>` or `<n>`) when it is one the user manages. */
  resolveLocation(
    account: AccountCredentials,
    locationId: string | null | undefined,
    io: PlatformIO,
  ): Promise<ResolvedLocation>;
}

/** Fields every listing reads (Business Information locations.list needs a read mask). */
const READ_MASK = 'name,title,storefrontAddress,categories,websiteUri,metadata';

const resolved = (account: string, locationId: string): ResolvedLocation => ({
  account,
  locationId,
  v4: `${account}/locations/${locationId}`,
  v1: `locations/${locationId}`,
});

/** A PostalAddress of Business Information (a location's storefrontAddress), the parts shown. */
interface PostalAddress {
  addressLines?: string[];
  locality?: string;
  administrativeArea?: string;
  postalCode?: string;
  regionCode?: string;
}

/** A LocalPost of the v4 API, the fields read here. */
interface LocalPost {
  name?: unknown;
  searchUrl?: unknown;
  state?: unknown;
  summary?: string;
  createTime?: string;
}

function address(a: PostalAddress | null | undefined): string {
  if (!a) return '';
  return [...(a.addressLines ?? []), a.locality, a.administrativeArea, a.postalCode, a.regionCode]
    .filter(Boolean)
    .join(', ');
}

export function createGoogleBusinessAdapter(opts: GoogleBusinessOptions): GoogleBusinessAdapter {
  const oauth = googleBusinessOAuth(opts);

  /** Every location of every account of the token's user (Account Management, then Business Information). */
  async function listLocations(accessToken: string, io: PlatformIO): Promise<Destination[]> {
    const out: Destination[] = [];
    for (const acct of await listAccounts(opts, io, accessToken)) {
      let pageToken = '';
      do {
        const q = new URLSearchParams({ readMask: READ_MASK, pageSize: '100', ...(pageToken ? { pageToken } : {}) });
        const res = await gbpRequest(io, {
          method: 'GET',
          url: `${opts.infoUrl}/v1/${acct.name}/locations?${q}`,
          token: accessToken,
        });
        for (const loc of res.body?.locations ?? []) {
          const id = bareLocationId(String(loc.name));
          out.push({
            id,
            name: loc.title ?? id,
            username: loc.title ?? id,
            picture: null,
            details: {
              accountId: acct.name,
              accountName: acct.accountName ?? '',
              address: address(loc.storefrontAddress),
              category: loc.categories?.primaryCategory?.displayName ?? '',
              websiteUrl: loc.websiteUri ?? '',
              mapsUri: loc.metadata?.mapsUri ?? null,
              canHaveFoodMenus: loc.metadata?.canHaveFoodMenus === true,
            },
          });
        }
        pageToken = res.body?.nextPageToken ?? '';
      } while (pageToken);
    }
    return out;
  }

  async function resolveLocation(
    account: AccountCredentials,
    locationId: string | null | undefined,
    io: PlatformIO,
  ): Promise<ResolvedLocation> {
    const selected = typeof account.metadata.locationId === 'string' ? account.metadata.locationId : null;
    const wanted = locationId ? bareLocationId(locationId) : selected;
    if (!wanted)
      throw new PlatformError(
        'rejected',
        'the Google Business account has no location selected: choose one with PUT /v1/accounts/{id}/gmb-locations',
        { platformCode: 'location_required' },
      );
    if (wanted === selected && typeof account.metadata.googleAccountId === 'string')
      return resolved(account.metadata.googleAccountId, wanted);
    // Another location of the same user (the same account may post to several): its account from the listing.
    const found = (await listLocations(token(account), io)).find((d) => d.id === wanted);
    if (!found)
      throw new PlatformError(
        'rejected',
        `location ${wanted} is not one this Google account manages (GET /v1/accounts/{id}/gmb-locations lists them)`,
        { platformCode: 'location_not_found' },
      );
    return resolved(String(found.details.accountId), wanted);
  }

  /** The v4 LocalPost of a target: https://developers.google.com/my-business/reference/rest/v4/accounts.locations.localPosts */
  function localPost(req: PublishRequest): Record<string, unknown> {
    const tooLong = textRuleError(TEXT, req.content, 'the post text');
    if (tooLong) throw new PlatformError('rejected', tooLong, { platformCode: 'summary' });
    if (req.media.some((m) => m.type !== 'image'))
      throw new PlatformError('rejected', 'a Google Business post takes one JPEG or PNG image and no video', {
        platformCode: 'media_type',
      });
    if (req.media.length > 1)
      throw new PlatformError('rejected', 'a Google Business post takes at most one image', {
        platformCode: 'media_count',
      });
    const image = req.media[0];
    const problem = image ? imageUrlProblem(image.url) : null;
    if (problem) throw new PlatformError('rejected', problem, { platformCode: 'media_url' });
    const psd = req.platformSpecificData;
    const cta = psd.callToAction as { type: string; url?: string } | undefined;
    return {
      // languageCode is the post's metadata only: Google detects the language when it is absent.
      ...(typeof psd.languageCode === 'string' ? { languageCode: psd.languageCode } : {}),
      summary: req.content,
      topicType: 'STANDARD',
      ...(cta
        ? { callToAction: { actionType: cta.type, ...(cta.type !== 'CALL' && cta.url ? { url: cta.url } : {}) } }
        : {}),
      ...(image ? { media: [{ mediaFormat: 'PHOTO', sourceUrl: image.url }] } : {}),
    };
  }

  /**
   * Google fetches the photo itself, once, without credentials and without following redirects: a URL
   * that Herald sees redirect or ask for a login is refused before the post is made, with the reason. A
   * URL Herald cannot reach at all is left to Google (it may reach what this server cannot).
   */
  async function checkImageUrl(url: string, io: PlatformIO): Promise<void> {
    let res: Response;
    try {
      res = await io.fetchUrl(url, { method: 'HEAD', redirect: 'manual', signal: AbortSignal.timeout(10_000) });
    } catch {
      return;
    }
    if (res.status >= 300 && res.status < 400) {
      throw new PlatformError(
        'rejected',
        `the image URL redirects (HTTP ${res.status}${res.headers.get('location') ? ` to ${res.headers.get('location')}` : ''}); Google Business does not follow redirects: use the final URL`,
        { platformCode: 'media_url_redirect' },
      );
    }
    if (res.status === 401 || res.status === 403) {
      throw new PlatformError(
        'rejected',
        `the image URL asks for authentication (HTTP ${res.status}); Google Business fetches it without credentials: make it public`,
        { platformCode: 'media_url_auth' },
      );
    }
  }

  const result = (post: LocalPost): PublishResult => ({
    platformPostId: String(post.name),
    platformPostUrl: typeof post.searchUrl === 'string' ? post.searchUrl : null,
    extra: { state: post.state ?? null },
  });

  return {
    platform: 'googlebusiness',
    oauth,
    options: opts,
    resolveLocation,

    async publish(req, io) {
      const body = localPost(req);
      if (req.media[0]) await checkImageUrl(req.media[0].url, io);
      const where = await resolveLocation(req.account, req.platformSpecificData.locationId as string | undefined, io);
      const res = await gbpRequest(io, {
        method: 'POST',
        url: `${opts.apiUrl}/v4/${where.v4}/localPosts`,
        token: token(req.account),
        json: body,
        creates: true,
      });
      return result(res.body);
    },

    /** After an unknown outcome: the location's posts (newest first), matched on the exact text, made since the attempt began. */
    async findPublished(req, since, io) {
      const where = await resolveLocation(req.account, req.platformSpecificData.locationId as string | undefined, io);
      const res = await gbpRequest(io, {
        method: 'GET',
        url: `${opts.apiUrl}/v4/${where.v4}/localPosts?pageSize=100`,
        token: token(req.account),
      });
      const floor = since.getTime() - 5 * 60_000;
      const match = ((res.body?.localPosts ?? []) as LocalPost[]).find(
        (p) => (p.summary ?? '') === req.content && Date.parse(p.createTime ?? '') >= floor,
      );
      return match ? result(match) : null;
    },

    /** The post's text (summary) through localPosts.patch (edit.ts). */
    editText: (req, io) => editLocalPost(opts, req, io),
    /** The local post's name (`accounts/<a>/locations/<l>/localPosts/<p>`) is its id: DELETE /v4/{name}. */
    inbox: googleBusinessInbox(opts),

    async unpublish(account, platformPostId, io) {
      await gbpRequest(io, { method: 'DELETE', url: `${opts.apiUrl}/v4/${platformPostId}`, token: token(account) });
    },

    destinations: {
      kind: 'location',
      list: async (tokens, io, o) => {
        const all = await listLocations(tokens.accessToken, io);
        return o?.ids ? all.filter((d) => o.ids!.includes(d.id)) : all;
      },
      async select(destination, user) {
        if (!destination)
          throw new PlatformError('rejected', 'a Google Business account posts to one of its locations');
        return {
          metadata: {
            locationId: destination.id,
            locationName: destination.name,
            googleAccountId: destination.details.accountId,
            accountName: destination.details.accountName,
          },
          profile: {
            ...user.profile,
            username: destination.name,
            displayName: destination.name,
            profileUrl: (destination.details.mapsUri as string | null) ?? null,
          },
        };
      },
    },

    async refreshTokens(account, io) {
      if (!account.refreshToken)
        throw new PlatformError('auth', 'the Google Business account has no refresh token; reconnect it', {
          revoked: true,
        });
      return oauth.refresh(account.refreshToken, io);
    },
  };
}

/** The adapter from configuration (GOOGLEBUSINESS_CLIENT_ID/SECRET, the _URL hosts, GOOGLEBUSINESS_SCOPES). */
export function googleBusinessAdapterFromConfig(config: Config): GoogleBusinessAdapter {
  return createGoogleBusinessAdapter(googleBusinessOptions(config));
}
