import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { googleBusinessSimulator } from '../../src/sandbox/googlebusiness/index.js';
import { reviewsOf } from '../../src/sandbox/googlebusiness/reviews.js';
import { createOAuthE2E, sdkData, type OAuthE2E } from '../helpers/oauth-e2e.js';
import { followAuthUrl } from '../helpers/oauth-test-platform.js';
import { sdkError } from '../helpers/posts.js';
import { sandboxCall } from '../helpers/sandbox-env.js';

/*
 * Google Business reviews end to end through the official SDK against the simulator: reviews injected
 * with `_inbound` are polled (v4 reviews.list, pages of 50), listed with their 1..5 rating, filtered by
 * rating and by reply, summarized; a reply is PUT on Google and deleted there; a reply made on Google
 * itself is picked up by the next poll; what Google Business cannot do is 400 PLATFORM_LIMITATION.
 */

let e: OAuthE2E;
const APP = 'https://app.example/cb';
beforeAll(async () => {
  e = await createOAuthE2E((now) => [googleBusinessSimulator({ now })]);
});
afterAll(async () => e?.close());

const sim = (method: string, path: string, body?: unknown) =>
  sandboxCall(e.sandbox, method, `/sandbox/googlebusiness${path}`, body);
const poll = async () => {
  e.env.clock.advance(e.env.ctx.config.inboxPollMs);
  await e.runner.drain();
};

describe('Google Business inbox', () => {
  it('polls reviews, filters and summarizes them, and replies on Google', async () => {
    const { apiKey } = await e.env.createUser({ addons: ['inbox'] });
    const sdk = await e.env.sdk(apiKey);
    const profile = sdkData(await sdk.profiles.createProfile({ body: { name: 'GBP inbox' } })).profile;
    await sim('POST', '/_oauth/users', { id: 'gbpInbox1', username: 'gbpInbox1', name: 'Biz gbpInbox1' });
    const start = sdkData(
      await sdk.connect.getConnectUrl({
        path: { platform: 'googlebusiness' },
        query: { profileId: profile._id, redirect_url: APP, headless: true } as any,
      }),
    );
    const landed = new URL((await followAuthUrl(`${start.authUrl}&login_hint=gbpInbox1`, APP)).url);
    const pendingDataToken = landed.searchParams.get('pendingDataToken')!;
    const locations = sdkData(
      await sdk.connect.googleBusiness.listGoogleBusinessLocations({
        query: { profileId: profile._id, pendingDataToken } as any,
      }),
    ).locations as any[];
    await sdk.connect.googleBusiness.selectGoogleBusinessLocation({
      body: { profileId: profile._id, locationId: locations[0].id, pendingDataToken } as any,
    });
    const accountId = sdkData(await sdk.accounts.listAccounts({ query: { profileId: profile._id } })).accounts[0]
      ._id as string;
    const location = locations[0].id as string;

    // 55 reviews: more than one page of 50.
    const ids: string[] = [];
    for (let i = 0; i < 55; i++) {
      e.env.clock.advance(1000);
      ids.push(
        (
          await sim('POST', '/_inbound', {
            kind: 'review',
            account: location,
            rating: (i % 5) + 1,
            text: `Review ${i}`,
            reviewer: { name: `Customer ${i}` },
          })
        ).id,
      );
    }
    await poll();
    await poll();

    const first = sdkData(await sdk.reviews.listInboxReviews({ query: { accountId, limit: 50 } }));
    expect(first.data).toHaveLength(50);
    expect(first.summary).toEqual({ totalReviews: 55, averageRating: 3 });
    const rest = sdkData(
      await sdk.reviews.listInboxReviews({ query: { accountId, limit: 50, cursor: first.pagination.nextCursor } }),
    );
    expect(new Set([...first.data, ...rest.data].map((r: any) => r.id))).toEqual(new Set(ids));
    const last = first.data.find((r: any) => r.id === ids[54]);
    expect(last).toMatchObject({
      platform: 'googlebusiness',
      accountId,
      rating: 5,
      text: 'Review 54',
      reviewer: { name: 'Customer 54' },
      hasReply: false,
    });
    const fives = sdkData(await sdk.reviews.listInboxReviews({ query: { accountId, minRating: 5, limit: 50 } }));
    expect(fives.data).toHaveLength(11);
    expect(fives.summary).toEqual({ totalReviews: 11, averageRating: 5 });

    // Reply to a one-star review: Google has it, Herald shows it.
    const oneStar = ids[0];
    const replied = sdkData(
      await sdk.reviews.replyToInboxReview({
        path: { reviewId: oneStar },
        body: { accountId, message: 'Sorry, please call us.' },
      }),
    );
    expect(replied).toMatchObject({
      status: 'success',
      reply: { text: 'Sorry, please call us.' },
      platform: 'googlebusiness',
    });
    expect(reviewsOf(e.sandbox.state('googlebusiness')).get(oneStar)!.reply?.comment).toBe('Sorry, please call us.');
    const withReply = sdkData(await sdk.reviews.listInboxReviews({ query: { accountId, hasReply: true } }));
    expect(withReply.data.map((r: any) => r.id)).toEqual([oneStar]);
    expect(withReply.data[0].reply).toMatchObject({ text: 'Sorry, please call us.' });
    const noReply = sdkData(
      await sdk.reviews.listInboxReviews({ query: { accountId, hasReply: false, maxRating: 1, limit: 50 } }),
    );
    expect(noReply.data).toHaveLength(10);

    // The reply deleted on Google.
    await sdk.reviews.deleteInboxReviewReply({ path: { reviewId: oneStar }, body: { accountId } });
    expect(reviewsOf(e.sandbox.state('googlebusiness')).get(oneStar)!.reply).toBeNull();
    expect(sdkData(await sdk.reviews.listInboxReviews({ query: { accountId, hasReply: true } })).data).toHaveLength(0);

    // A review answered on Google itself: the next poll takes the reply as Google has it.
    const review = reviewsOf(e.sandbox.state('googlebusiness')).get(ids[1])!;
    review.reply = { comment: 'Answered in the Google app', updatedAt: e.env.clock.now().getTime() + 5000 };
    review.updatedAt = e.env.clock.now().getTime() + 5000;
    await poll();
    const answered = sdkData(await sdk.reviews.listInboxReviews({ query: { accountId, hasReply: true } }));
    expect(answered.data.map((r: any) => [r.id, r.reply?.text])).toEqual([[ids[1], 'Answered in the Google app']]);

    // GET /v1/accounts/{id}/gmb-reviews reads the same reviews live from Google (the inbox's reader), in
    // Google's own pages: every review once, its rating both ways, the reply made on Google.
    const seen: any[] = [];
    let pageToken: string | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const live = sdkData(
        await sdk.accounts.getGoogleBusinessReviews({
          path: { accountId },
          query: { pageSize: 20, ...(pageToken ? { pageToken } : {}) },
        }),
      );
      expect(live).toMatchObject({
        success: true,
        accountId,
        locationId: location,
        totalReviewCount: 55,
        averageRating: 3,
      });
      expect(live.reviews.length).toBeLessThanOrEqual(20);
      seen.push(...live.reviews);
      pageToken = live.nextPageToken ?? undefined;
      if (!pageToken) break;
    }
    expect(seen.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(seen.find((r) => r.id === ids[1])).toMatchObject({
      rating: 2,
      starRating: 'TWO',
      comment: 'Review 1',
      reviewer: { displayName: 'Customer 1', isAnonymous: false },
      reviewReply: { comment: 'Answered in the Google app' },
    });
    expect(seen.find((r) => r.id === ids[2]).reviewReply).toBeNull();
    const tooBig = await sdkError(
      sdk.accounts.getGoogleBusinessReviews({ path: { accountId }, query: { pageSize: 51 } }),
    );
    expect(tooBig.statusCode).toBe(400);

    // What Google Business has not: comments and conversations.
    for (const call of [
      () => sdk.comments.replyToInboxPost({ path: { postId: 'x' }, body: { accountId, message: 'x' } }),
      () => sdk.comments.getInboxPostComments({ path: { postId: 'x' }, query: { accountId } }),
    ]) {
      const err = await sdkError(call());
      expect([err.statusCode, err.code]).toEqual([400, 'PLATFORM_LIMITATION']);
    }
    // A simulator refuses an item kind it has not.
    const refused = await fetch(`${e.sandbox.url}/sandbox/googlebusiness/_inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'message', account: location, text: 'hi' }),
    });
    expect(refused.status).toBe(400);
  });
});
