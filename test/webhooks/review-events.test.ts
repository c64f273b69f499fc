import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleBusinessSimulator } from '../../src/sandbox/googlebusiness/index.js';
import { reviewsOf } from '../../src/sandbox/googlebusiness/reviews.js';
import { createOAuthE2E, sdkData, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { followAuthUrl } from '../helpers/oauth-test-platform.js';
import { sandboxCall } from '../helpers/sandbox-env.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/*
 * review.new and review.updated end to end on the Google Business simulator: a review the inbox poll
 * finds is review.new; a reply through POST /v1/inbox/reviews/{id}/reply and an edit the reviewer makes
 * on Google (seen by the next poll) are review.updated; each reaches a real receiver once, in the shape
 * @zernio/node 0.2.881 declares (WebhookPayloadReviewNew / ReviewUpdated). A poll that sees nothing
 * changed announces nothing.
 */

let e: OAuthE2E;
let receiver: WebhookReceiver;
const APP = 'https://app.example/cb';
beforeAll(async () => {
  e = await createOAuthE2E((now) => [googleBusinessSimulator({ now })], { env: { WEBHOOK_ALLOW_INSECURE: '1' } });
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await e?.close();
});

const sim = (method: string, path: string, body?: unknown) =>
  sandboxCall(e.sandbox, method, `/sandbox/googlebusiness${path}`, body);
const poll = async () => {
  e.env.clock.advance(e.env.ctx.config.inboxPollMs);
  await e.runner.drain();
};
const delivered = (event: string) => receiver.received.filter((r) => r.json?.event === event).map((r) => r.json);

describe('review webhooks', () => {
  it('announces a new review, a reply to it and the reviewer changing it, each once', async () => {
    const { apiKey } = await e.env.createUser({ addons: ['inbox'] });
    const sdk = await e.env.sdk(apiKey);
    const profile = sdkData(await sdk.profiles.createProfile({ body: { name: 'GBP events' } })).profile;
    await sim('POST', '/_oauth/users', { id: 'gbpEvents1', username: 'gbpEvents1', name: 'Biz gbpEvents1' });
    const start = sdkData(
      await sdk.connect.getConnectUrl({
        path: { platform: 'googlebusiness' },
        query: { profileId: profile._id, redirect_url: APP, headless: true } as any,
      }),
    );
    const landed = new URL((await followAuthUrl(`${start.authUrl}&login_hint=gbpEvents1`, APP)).url);
    const pendingDataToken = landed.searchParams.get('pendingDataToken')!;
    const locations = sdkData(
      await sdk.connect.googleBusiness.listGoogleBusinessLocations({
        query: { profileId: profile._id, pendingDataToken } as any,
      }),
    ).locations as any[];
    await sdk.connect.googleBusiness.selectGoogleBusinessLocation({
      body: { profileId: profile._id, locationId: locations[0].id, pendingDataToken } as any,
    });
    const account = sdkData(await sdk.accounts.listAccounts({ query: { profileId: profile._id } })).accounts[0];
    const accountId = account._id as string;
    await sdk.webhooks.createWebhookSettings({
      body: { name: 'reviews', url: receiver.url, events: ['review.new', 'review.updated'] },
    });

    e.env.clock.advance(1000);
    const reviewId = (
      await sim('POST', '/_inbound', {
        kind: 'review',
        account: locations[0].id,
        rating: 2,
        text: 'Slow service',
        reviewer: { name: 'Customer A' },
      })
    ).id as string;
    await poll();
    const [created] = delivered('review.new');
    expect(delivered('review.new')).toHaveLength(1);
    expect(created).toMatchObject({
      event: 'review.new',
      review: {
        id: reviewId,
        platform: 'googlebusiness',
        rating: 2,
        text: 'Slow service',
        reviewer: { name: 'Customer A' },
        hasReply: false,
      },
      account: { id: accountId, accountId, platform: 'googlebusiness', username: account.username },
    });
    expect(created.review).not.toHaveProperty('reply');
    expect(Date.parse(created.review.createdAt)).not.toBeNaN();

    // A reply through the API: review.updated with the reply.
    await sdk.reviews.replyToInboxReview({ path: { reviewId }, body: { accountId, message: 'Sorry, we are on it.' } });
    await e.runner.drain();
    expect(delivered('review.updated')).toHaveLength(1);
    expect(delivered('review.updated')[0]).toMatchObject({
      review: { id: reviewId, rating: 2, hasReply: true, reply: { text: 'Sorry, we are on it.' } },
      account: { id: accountId },
    });

    // Polls that see the review as Herald has it announce nothing more.
    await poll();
    expect(delivered('review.updated')).toHaveLength(1);

    // The reviewer edits text and rating on Google: the next poll announces the review as it now is.
    const review = reviewsOf(e.sandbox.state('googlebusiness')).get(reviewId)!;
    review.comment = 'Slow, but they fixed it';
    review.rating = 4;
    review.updatedAt = e.env.clock.now().getTime() + 5000;
    await poll();
    const updates = delivered('review.updated');
    expect(updates).toHaveLength(2);
    expect(updates[1]).toMatchObject({
      review: { id: reviewId, rating: 4, text: 'Slow, but they fixed it', hasReply: true },
    });
    expect(updates[1].id).not.toBe(updates[0].id);
    expect(delivered('review.new')).toHaveLength(1);
  });
});
