/*
 * The `referral` object the Messenger and Instagram simulators put in a pushed webhook, built from the
 * `_inbound` body's `referral` {ref, source, adId, adTitle, photoUrl, videoUrl, postId, refererUri}
 * (docs/sandbox-inbound.md), refusing what Meta would never send:
 * - `ref`: letters, digits, `-`, `_` and `=` only
 *   (https://developers.facebook.com/documentation/business-messaging/messenger-platform/webhooks/webhook-events/messaging_referrals),
 *   2,083 characters at most (https://developers.facebook.com/docs/messenger-platform/discovery/m-me-links/,
 *   https://developers.facebook.com/documentation/business-messaging/instagram-messaging/features/ig-me-links);
 * - `source`: Messenger's ADS or SHORTLINK (messaging_referrals), Instagram's SHORTLINKS for ig.me links
 *   (ig-me-links) or ADS for an ad; a link referral carries a `ref`, an ad referral an `ad_id` and its
 *   `ads_context_data`; `type` is always OPEN_THREAD;
 * - `referer_uri` is Messenger's (the site an m.me link was opened from).
 */

export type ReferralSurface = 'messenger' | 'instagram';

const REF = /^[A-Za-z0-9_=-]+$/;
const REF_MAX = 2083;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** Meta's referral object for `raw`, or the reason Meta would not send one. */
export function inboundReferral(
  raw: unknown,
  surface: ReferralSurface,
): { referral: Record<string, unknown> } | { error: string } {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    return { error: 'referral must be an object {ref, source, adId, ...}' };
  const r = raw as Record<string, unknown>;
  const link = surface === 'messenger' ? 'SHORTLINK' : 'SHORTLINKS';
  const ref = r.ref === undefined ? undefined : r.ref;
  if (ref !== undefined && (typeof ref !== 'string' || !REF.test(ref) || ref.length > REF_MAX))
    return { error: `referral.ref must be 1 to ${REF_MAX} letters, digits, "-", "_" or "="` };
  const adId = r.adId === undefined ? undefined : String(r.adId);
  const source = str(r.source) ?? (adId ? 'ADS' : link);
  if (source !== 'ADS' && source !== link)
    return {
      error: `referral.source must be ADS or ${link} on ${surface === 'messenger' ? 'Messenger' : 'Instagram'}`,
    };
  if (source === 'ADS' && !(adId && /^\d+$/.test(adId)))
    return { error: 'an ADS referral needs adId, the numeric id of the ad' };
  if (source !== 'ADS' && adId !== undefined) return { error: 'adId belongs to an ADS referral' };
  if (source !== 'ADS' && ref === undefined) return { error: `a ${link} referral needs the link's ref` };
  if (r.refererUri !== undefined && (surface !== 'messenger' || !/^https?:\/\//.test(String(r.refererUri))))
    return { error: 'referral.refererUri is an http(s) URL, and Messenger only' };
  const context = {
    ...(str(r.adTitle) ? { ad_title: str(r.adTitle) } : {}),
    ...(str(r.photoUrl) ? { photo_url: str(r.photoUrl) } : {}),
    ...(str(r.videoUrl) ? { video_url: str(r.videoUrl) } : {}),
    ...(str(r.postId) ? { post_id: str(r.postId) } : {}),
  };
  if (source !== 'ADS' && Object.keys(context).length) return { error: 'the ad fields belong to an ADS referral' };
  return {
    referral: {
      ...(ref !== undefined ? { ref } : {}),
      ...(source === 'ADS' ? { ad_id: adId } : {}),
      source,
      type: 'OPEN_THREAD',
      ...(r.refererUri !== undefined ? { referer_uri: String(r.refererUri) } : {}),
      ...(source === 'ADS' ? { ads_context_data: { ad_title: str(r.adTitle) ?? 'Sandbox ad', ...context } } : {}),
    },
  };
}
