import { createHmac, randomInt } from 'node:crypto';
import type { SimulatorState } from '../types.js';
import { graphError } from './errors.js';
import type { GraphHandler } from './index.js';

/*
 * Meta webhooks on the simulator side, shared by the Graph simulators: `POST /{app-id}/subscriptions`
 * with the app access token (`{app-id}|{app-secret}`) checks the callback the way Meta does (a GET with
 * hub.mode=subscribe, hub.challenge and hub.verify_token, which must answer the challenge) before it
 * keeps the subscription; `GET /{app-id}/subscriptions` lists them; `deliverMetaWebhook` POSTs a
 * notification to the subscribed callback signed with the app secret (X-Hub-Signature-256), as `_inbound`
 * needs (https://developers.facebook.com/docs/graph-api/webhooks/getting-started).
 */

interface MetaSubscription {
  appId: string;
  appSecret: string;
  object: string;
  callbackUrl: string;
  verifyToken: string;
  fields: string[];
}

function subscriptions(state: SimulatorState): Map<string, MetaSubscription> {
  let subs = state.data.get('meta-subscriptions') as Map<string, MetaSubscription> | undefined;
  if (!subs) {
    subs = new Map();
    state.data.set('meta-subscriptions', subs);
  }
  return subs;
}

const list = (v: unknown): string[] =>
  Array.isArray(v)
    ? v.map(String)
    : typeof v === 'string'
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : [];

export const SUBSCRIPTION_HANDLERS: Record<string, GraphHandler> = {
  async 'POST Application subscriptions'(call) {
    if (call.token.kind !== 'app' || !call.token.appSecret) {
      return graphError(call.reply, 400, {
        message: '(#15) This method must be called with an app access_token.',
        code: 15,
      });
    }
    const p = call.params;
    const callbackUrl = typeof p.callback_url === 'string' ? p.callback_url : '';
    if (!/^https?:\/\//.test(callbackUrl))
      return graphError(call.reply, 400, { message: '(#100) Param callback_url must be a valid URL', code: 100 });
    const verifyToken = typeof p.verify_token === 'string' ? p.verify_token : '';
    const challenge = String(randomInt(1_000_000_000));
    const q = new URLSearchParams({
      'hub.mode': 'subscribe',
      'hub.challenge': challenge,
      'hub.verify_token': verifyToken,
    });
    let answered = '';
    try {
      const res = await fetch(`${callbackUrl}${callbackUrl.includes('?') ? '&' : '?'}${q}`, {
        signal: AbortSignal.timeout(10_000),
      });
      answered = res.ok ? (await res.text()).trim() : `HTTP ${res.status}`;
    } catch (e) {
      answered = (e as Error).message;
    }
    if (answered !== challenge) {
      return graphError(call.reply, 400, {
        message: `(#2201) response does not match challenge, expected value="${challenge}", received="${answered.slice(0, 100)}"`,
        code: 2201,
      });
    }
    const object = String(p.object);
    subscriptions(call.state).set(`${call.token.clientId}|${object}`, {
      appId: call.token.clientId,
      appSecret: call.token.appSecret,
      object,
      callbackUrl,
      verifyToken,
      fields: list(p.fields),
    });
    return { success: true };
  },
  'GET Application subscriptions'(call) {
    const data = [...subscriptions(call.state).values()]
      .filter((s) => s.appId === call.token.clientId)
      .map((s) => ({
        object: s.object,
        callback_url: s.callbackUrl,
        active: true,
        fields: s.fields.map((name) => ({ name, version: call.version })),
      }));
    return { data };
  },
  'DELETE Application subscriptions'(call) {
    const object = typeof call.params.object === 'string' ? call.params.object : null;
    for (const [key, s] of subscriptions(call.state))
      if (s.appId === call.token.clientId && (!object || s.object === object)) subscriptions(call.state).delete(key);
    return { success: true };
  },
};

/**
 * POSTs `{object, entry}` to every callback subscribed to `object` and `field`, signed with its app's
 * secret. Answers the callback's status (null: nobody subscribed).
 */
/**
 * Pages that installed the app with `POST /{page-id}/subscribed_apps`, with the fields each subscribed
 * (page id -> fields). Meta delivers a Page's webhooks only to apps the Page has installed:
 * https://developers.facebook.com/docs/graph-api/webhooks/getting-started/webhooks-for-pages
 */
export function pageInstalls(state: SimulatorState): Map<string, string[]> {
  let m = state.data.get('graph-page-installs') as Map<string, string[]> | undefined;
  if (!m) {
    m = new Map();
    state.data.set('graph-page-installs', m);
  }
  return m;
}

export async function deliverMetaWebhook(
  state: SimulatorState,
  object: string,
  field: string,
  /** The entries, or a function of the receiving app's id for those that name it (handovers). */
  entries: Record<string, unknown>[] | ((appId: string) => Record<string, unknown>[]),
): Promise<number | null> {
  let status: number | null = null;
  // A Page's updates go out only when the Page installed the app for that field.
  const installed = (entry: Record<string, unknown>[]) =>
    object === 'page' ? entry.filter((e) => pageInstalls(state).get(String(e.id))?.includes(field)) : entry;
  for (const sub of subscriptions(state).values()) {
    if (sub.object !== object || (sub.fields.length && !sub.fields.includes(field))) continue;
    const entry = installed(typeof entries === 'function' ? entries(sub.appId) : entries);
    if (entry.length === 0) continue;
    const body = JSON.stringify({ object, entry });
    try {
      const res = await fetch(sub.callbackUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-hub-signature-256': `sha256=${createHmac('sha256', sub.appSecret).update(body).digest('hex')}`,
        },
        body,
        signal: AbortSignal.timeout(10_000),
      });
      status = res.status;
    } catch {
      status = 0;
    }
  }
  return status;
}
