import type { Zernio } from '@zernio/node';
import { registerInboxWebhooks } from '../../src/domain/inbox/webhooks.js';
import { createOAuthE2E, sdkData, type OAuthE2E } from './oauth-e2e.js';
import { followAuthUrl } from './oauth-test-platform.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';
import { zernio } from './zernio.js';
import { facebookSimulator } from '../../src/sandbox/facebook/index.js';

export interface FacebookPageWebhooks {
  e: OAuthE2E;
  /** The tenant with the Page: its client, id, the Page's account id and Page id. */
  t: { z: Zernio; userId: string; accountId: string; pageId: string };
  /** This tenant's receiver, and another tenant's subscribed to the same events. */
  mine: WebhookReceiver;
  theirs: WebhookReceiver;
  otherUserId: string;
  close(): Promise<void>;
}

/**
 * Herald with the Facebook simulator and plain-HTTP webhooks; a tenant with the inbox add-on whose Page
 * is connected through @zernio/node (headless connect, then the Page selected), Meta's Page webhooks
 * registered; and a second tenant. Each tenant has a webhook on a receiver of its own for `events`.
 */
export async function facebookPageWithWebhooks(opts: {
  name: string;
  loginHint: string;
  events: string[];
}): Promise<FacebookPageWebhooks> {
  const e = await createOAuthE2E((now) => [facebookSimulator({ now })], { env: { WEBHOOK_ALLOW_INSECURE: '1' } });
  const mine = await startWebhookReceiver();
  const theirs = await startWebhookReceiver();
  const { userId, apiKey } = await e.env.createUser({ addons: ['inbox'] });
  const sdk = await e.env.sdk(apiKey);
  const profileId = sdkData(await sdk.profiles.createProfile({ body: { name: opts.name } })).profile._id as string;
  const start = sdkData(
    await sdk.connect.getConnectUrl({
      path: { platform: 'facebook' },
      // any: `headless` is a query parameter the client's type leaves out.
      query: { profileId, headless: true, redirect_url: 'https://app.example/fb' } as any,
    }),
  );
  const end = await followAuthUrl(`${start.authUrl}&login_hint=${opts.loginHint}`, 'https://app.example/');
  const params = new URL(end.url).searchParams;
  const headers = { 'X-Connect-Token': params.get('connect_token')! };
  const query = { profileId, tempToken: params.get('tempToken')! };
  const pages = sdkData(await sdk.connect.facebook.listFacebookPages({ headers, query })).pages as { id: string }[];
  const selected = sdkData(
    // any: the selection body takes `tempToken`, which the client's type leaves out.
    await sdk.connect.facebook.selectFacebookPage({ headers, body: { ...query, pageId: pages[0].id } } as any),
  );
  const t = { z: await zernio(e.env, apiKey), userId, accountId: selected.account.accountId, pageId: pages[0].id };
  await registerInboxWebhooks(e.env.ctx);

  const other = await e.env.createUser({ addons: ['inbox'] });
  // any: the client types `events` as its own union of names.
  for (const [z, url] of [
    [t.z, mine.url],
    [await zernio(e.env, other.apiKey), theirs.url],
  ] as const)
    await z.webhooks.createWebhookSettings({ body: { name: opts.name, url, events: opts.events as any } });
  return {
    e,
    t,
    mine,
    theirs,
    otherUserId: other.userId,
    async close() {
      await mine.close();
      await theirs.close();
      await e.close();
    },
  };
}
