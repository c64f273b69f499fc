import type { Config } from '../../config.js';
import { platformBaseUrl, platformSetting } from '../config.js';
import { graphHttp, graphRequest, type GraphCall } from '../graph/http.js';
import { platformRequest, type PlatformHttp, type PlatformResponse } from '../http.js';
import { PlatformError, type PlatformIO } from '../types.js';

/**
 * Where the Instagram adapter sends requests and which app it is. Two logins (INSTAGRAM_LOGIN):
 * `facebook` (default), Facebook Login for Business on graph.facebook.com, the account linked to a Page;
 * `instagram`, Instagram Login on graph.instagram.com, the professional account itself, no Page needed.
 */
export interface InstagramOptions {
  login: 'facebook' | 'instagram';
  /** Graph host: https://graph.facebook.com, or https://graph.instagram.com with Instagram Login (INSTAGRAM_API_URL). */
  apiUrl: string;
  /** Login dialog host: https://www.facebook.com, or https://www.instagram.com (INSTAGRAM_AUTH_URL). */
  authUrl: string;
  /** Instagram Login's code exchange host, https://api.instagram.com (INSTAGRAM_TOKEN_URL). */
  tokenUrl: string;
  /** Graph API version in every path, default v24.0 (INSTAGRAM_GRAPH_VERSION). */
  version: string;
  appId: string | null;
  appSecret: string | null;
  /** Permissions asked at login (INSTAGRAM_SCOPES, comma or space separated). */
  scopes: string[];
  /**
   * How videos reach Instagram (INSTAGRAM_VIDEO_UPLOAD): `url` (default), Instagram fetches `video_url`
   * from Herald's public media URL; `resumable`, the container is made with `upload_type=resumable` and
   * Herald sends the bytes to rupload itself (for a PUBLIC_URL Instagram cannot reach).
   */
  videoUpload?: 'url' | 'resumable';
  /** rupload host for resumable video uploads, default https://rupload.facebook.com (INSTAGRAM_RUPLOAD_URL). */
  ruploadUrl?: string;
}

/**
 * Instagram content publishing (https://developers.facebook.com/docs/instagram-platform/content-publishing)
 * asks `instagram_basic` and `instagram_content_publish`, and the Page permissions that find the
 * professional account linked to a Page; `instagram_manage_comments` posts the first comment and
 * moderates comments, `instagram_manage_messages` reads and answers direct messages (the inbox).
 */
export const INSTAGRAM_DEFAULT_SCOPES = [
  'instagram_basic',
  'instagram_content_publish',
  'instagram_manage_comments',
  'instagram_manage_messages',
  'pages_show_list',
  'pages_read_engagement',
  'business_management',
];

/** Instagram Login's own permissions (https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/business-login). */
const INSTAGRAM_LOGIN_SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_comments',
  'instagram_business_manage_messages',
];

export function instagramOptions(config: Config): InstagramOptions {
  const scopes = config.env.INSTAGRAM_SCOPES;
  const login = config.env.INSTAGRAM_LOGIN === 'instagram' ? 'instagram' : 'facebook';
  const ig = login === 'instagram';
  // One Meta app usually serves Facebook and Instagram through Facebook Login: without
  // INSTAGRAM_APP_ID/SECRET, Facebook's. Instagram Login has an app id of its own.
  const sandboxApp = config.env.SANDBOX_URL ? '100000000000001' : null;
  return {
    login,
    apiUrl: platformBaseUrl(config, 'instagram', ig ? 'https://graph.instagram.com' : 'https://graph.facebook.com'),
    authUrl: platformBaseUrl(
      config,
      'instagram',
      ig ? 'https://www.instagram.com' : 'https://www.facebook.com',
      'AUTH',
    ),
    tokenUrl: platformBaseUrl(config, 'instagram', 'https://api.instagram.com', 'TOKEN'),
    version: config.env.INSTAGRAM_GRAPH_VERSION || 'v24.0',
    appId: platformSetting(config, 'instagram', 'APP_ID', (ig ? null : config.env.FACEBOOK_APP_ID) || sandboxApp),
    appSecret: platformSetting(config, 'instagram', 'APP_SECRET', (ig ? null : config.env.FACEBOOK_APP_SECRET) || null),
    scopes: scopes ? scopes.split(/[ ,]+/).filter(Boolean) : ig ? INSTAGRAM_LOGIN_SCOPES : INSTAGRAM_DEFAULT_SCOPES,
    videoUpload: config.env.INSTAGRAM_VIDEO_UPLOAD === 'resumable' ? 'resumable' : 'url',
    ruploadUrl: platformBaseUrl(config, 'instagram', 'https://rupload.facebook.com', 'RUPLOAD'),
  };
}

/**
 * Graph's errors (graph/http.ts) and Instagram's own
 * (https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/error-codes):
 * 9 / 2207042 is the 24-hour publishing limit (`rate_limited`, an hour); 9007 / 2207027 is a container
 * not ready yet (`unavailable`); 9004 / 2207052 is media Instagram could not download (`rejected`, saying
 * the URL must be public).
 */
export const INSTAGRAM_HTTP: PlatformHttp = graphHttp({
  name: 'Instagram',
  reconnect:
    'reconnect the Instagram account with Facebook Login and grant Herald the Instagram permissions on its Page',
  versionSetting: 'INSTAGRAM_GRAPH_VERSION',
  classify(code, subcode, message, fields) {
    if (code === 9 || subcode === 2207042) {
      return new PlatformError(
        'rate_limited',
        `${message}: the Instagram account reached the most posts Instagram takes through the API in 24 hours`,
        { ...fields, retryAfterMs: 3_600_000 },
      );
    }
    if (code === 9007 && subcode === 2207027)
      return new PlatformError('unavailable', `${message}: the media is not ready to publish yet`, fields);
    if (code === 9004 || subcode === 2207052) {
      return new PlatformError(
        'rejected',
        `${message}: Instagram downloads the media itself, so its URL must be public (set PUBLIC_URL to an address Instagram reaches)`,
        fields,
      );
    }
    return null;
  },
});

export const graph = (io: PlatformIO, call: GraphCall): Promise<PlatformResponse> =>
  graphRequest(io, INSTAGRAM_HTTP, call);

/**
 * One rupload request (the resumable video upload): the token in `Authorization: OAuth`, the bytes as
 * the body, errors read as Graph's (rupload answers `{debug_info}` or Graph's error shape).
 */
export const graphUpload = (
  io: PlatformIO,
  call: { method: 'POST'; url: string; headers: Record<string, string>; body: Uint8Array },
): Promise<PlatformResponse> => platformRequest(io, INSTAGRAM_HTTP, { ...call, endpoint: '/ig-api-upload' });

/** `https://graph.facebook.com/v24.0` */
export const graphBase = (opts: InstagramOptions) => `${opts.apiUrl}/${opts.version}`;
