/*
 * Meta's `referral` object, as Messenger and Instagram push it: on its own when a person who already has
 * a thread clicks an m.me / ig.me link or an ad (Messenger's `messaging_referrals`, Instagram's
 * `messaging_referral` field), or inside the first message after a click. The documented keys:
 * - `ref`, `source` (ADS, SHORTLINK...), `type` (OPEN_THREAD), `referer_uri`, `ad_id`, and
 *   `ads_context_data` {ad_title, photo_url, video_url, post_id, product_id, flow_id}:
 *   https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messaging_referrals
 * - ig.me links: `ref`, `source` SHORTLINKS, `type` OPEN_THREAD:
 *   https://developers.facebook.com/documentation/business-messaging/instagram-messaging/features/ig-me-links
 * Herald forwards the object verbatim but only with these keys (and only string values), which are the
 * keys the hosted API's client declares for `referral.received` and `metadata.referral`.
 */

const REFERRAL_KEYS = ['ref', 'source', 'type', 'referer_uri', 'ad_id'] as const;
const AD_CONTEXT_KEYS = ['ad_title', 'photo_url', 'video_url', 'post_id', 'product_id', 'flow_id'] as const;

function pick(raw: Record<string, unknown>, keys: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  // Meta's ids may come as numbers; every documented value is a string.
  for (const k of keys) {
    const v = raw[k];
    if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) out[k] = String(v);
  }
  return out;
}

/** The documented keys of a pushed `referral`; null when it is not an object or has none of them. */
export function metaReferral(raw: unknown): Record<string, unknown> | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const r = raw as Record<string, unknown>;
  const out: Record<string, unknown> = pick(r, REFERRAL_KEYS);
  const ads = r.ads_context_data;
  if (ads && typeof ads === 'object' && !Array.isArray(ads)) {
    const context = pick(ads as Record<string, unknown>, AD_CONTEXT_KEYS);
    if (Object.keys(context).length) out.ads_context_data = context;
  }
  return Object.keys(out).length ? out : null;
}
