import { hmacSha256Hex, safeEqual } from '../../lib/crypto.js';
import type { PlatformHttp } from '../http.js';
import {
  PlatformError,
  type AccountMatch,
  type InboxBatch,
  type InboxWebhook,
  type PlatformWebhookAnswer,
  type PlatformWebhookRequest,
} from '../types.js';
import { graphRequest } from './http.js';

/*
 * Meta webhooks, as Facebook Pages, Instagram and Threads deliver them
 * (https://developers.facebook.com/docs/graph-api/webhooks/getting-started):
 * - the verification request: `GET callback?hub.mode=subscribe&hub.verify_token=<token>&hub.challenge=<n>`,
 *   answered with the challenge alone when the token is the one given at subscription (Herald's derived
 *   secret), refused 403 otherwise;
 * - event notifications: `POST callback` with `{object, entry: [...]}` and
 *   `X-Hub-Signature-256: sha256=<HMAC-SHA256 of the exact body with the app secret>`; a missing or wrong
 *   signature is refused and nothing is stored;
 * - registration: `POST /{app-id}/subscriptions` (object, callback_url, verify_token, fields) with the
 *   app access token `{app-id}|{app-secret}`; Meta verifies the callback before it answers.
 * Each platform supplies its object, fields, app and how one entry becomes inbox batches.
 */

export type MetaDelivery = { account: AccountMatch; batch: InboxBatch };

export interface MetaWebhookOptions {
  /** The `object` of the subscription and of the payloads: `page`, `instagram`, `threads`... */
  object: string;
  /** Webhook fields subscribed to (`messages`, `feed`, `comments`...). */
  fields: string[];
  appId: string | null;
  appSecret: string | null;
  /** Graph root with its version (`https://graph.facebook.com/v24.0`), where the subscription is made. */
  graphBase: string;
  /** The platform's Graph error handling (graphHttp). */
  http: PlatformHttp;
  /** What one `entry` of a notification brings, for which accounts. */
  entry(entry: Record<string, unknown>): MetaDelivery[];
}

/** Whether `header` (`sha256=<hex>`) is the HMAC-SHA256 of `body` with `appSecret` (compared in constant time). */
function metaSignatureValid(appSecret: string, body: Buffer, header: string | undefined): boolean {
  const m = /^sha256=([0-9a-fA-F]{64})$/.exec(header?.trim() ?? '');
  if (!m) return false;
  return safeEqual(m[1].toLowerCase(), hmacSha256Hex(appSecret, body));
}

/** The signature header Meta sends with `body` (what a simulator signs with). */
export function metaSignature(appSecret: string, body: Buffer | string): string {
  return `sha256=${hmacSha256Hex(appSecret, body)}`;
}

/** The verification request's answer: the challenge when the token matches, else 403. */
function handshake(req: PlatformWebhookRequest): PlatformWebhookAnswer {
  const q = req.query;
  const token = q['hub.verify_token'];
  if (q['hub.mode'] !== 'subscribe' || !token || !safeEqual(token, req.secret)) {
    return { kind: 'refused', status: 403, message: 'hub.verify_token does not match the token Herald registered' };
  }
  return { kind: 'reply', status: 200, contentType: 'text/plain', body: q['hub.challenge'] ?? '' };
}

export function metaWebhook(opts: MetaWebhookOptions): InboxWebhook {
  return {
    receive(req): PlatformWebhookAnswer {
      if (req.method === 'GET') return handshake(req);
      if (!opts.appSecret)
        return {
          kind: 'refused',
          status: 403,
          message: 'The app secret is not configured, so no notification can be verified',
        };
      if (!metaSignatureValid(opts.appSecret, req.rawBody, req.headers['x-hub-signature-256'])) {
        return {
          kind: 'refused',
          status: 401,
          message: 'X-Hub-Signature-256 is missing or does not match the body signed with the app secret',
        };
      }
      let payload: { object?: unknown; entry?: unknown };
      try {
        payload = JSON.parse(req.rawBody.toString('utf8')) as typeof payload;
      } catch {
        return { kind: 'refused', status: 400, message: 'The notification is not JSON' };
      }
      if (payload.object !== opts.object || !Array.isArray(payload.entry)) return { kind: 'accepted', deliveries: [] };
      const deliveries = payload.entry
        .filter((e): e is Record<string, unknown> => Boolean(e) && typeof e === 'object')
        .flatMap((e) => opts.entry(e));
      return { kind: 'accepted', deliveries };
    },
    async register(callbackUrl, secret, io) {
      if (!opts.appId || !opts.appSecret)
        throw new PlatformError('rejected', 'the app id and secret are needed to subscribe to Meta webhooks');
      await graphRequest(io, opts.http, {
        method: 'POST',
        url: `${opts.graphBase}/${encodeURIComponent(opts.appId)}/subscriptions`,
        // The app access token (https://developers.facebook.com/docs/facebook-login/guides/access-tokens#apptokens).
        token: `${opts.appId}|${opts.appSecret}`,
        json: {
          object: opts.object,
          callback_url: callbackUrl,
          verify_token: secret,
          fields: opts.fields.join(','),
          include_values: true,
        },
      });
    },
  };
}
