import { graphHttp, graphRequest, type GraphCall } from '../graph/http.js';
import type { PlatformHttp, PlatformResponse } from '../http.js';
import type { PlatformIO } from '../types.js';

/** Where the Facebook adapter sends requests and which Meta app it is. */
export interface FacebookOptions {
  /** Graph host, default https://graph.facebook.com (FACEBOOK_API_URL). */
  apiUrl: string;
  /** Login dialog host, default https://www.facebook.com (FACEBOOK_AUTH_URL). */
  authUrl: string;
  /** Graph API version in every path, default v24.0 (FACEBOOK_GRAPH_VERSION). */
  version: string;
  appId: string | null;
  appSecret: string | null;
  /** Permissions asked at login (FACEBOOK_SCOPES, comma or space separated). */
  scopes: string[];
  /** Bytes per upload request of a video (FACEBOOK_UPLOAD_CHUNK_MB, default 8 MiB). */
  chunkBytes: number;
}

/** Graph's errors and calls (graph/http.ts), named for Facebook. */
export const FACEBOOK_HTTP: PlatformHttp = graphHttp({
  name: 'Facebook',
  reconnect: 'reconnect the Facebook account and grant Herald the Page permissions',
  versionSetting: 'FACEBOOK_GRAPH_VERSION',
});

/** One Graph call with the token in `Authorization: OAuth` (never in the URL, which logs keep) and a JSON body. */
export const graph = (io: PlatformIO, call: GraphCall): Promise<PlatformResponse> =>
  graphRequest(io, FACEBOOK_HTTP, call);

/** `https://graph.facebook.com/v24.0` */
export const graphBase = (opts: FacebookOptions) => `${opts.apiUrl}/${opts.version}`;
