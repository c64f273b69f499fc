import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { telegramSimulator } from '../../../src/sandbox/telegram/index.js';
import { solidImage } from '../../../test/fixtures/media.js';
import { createOAuthE2E, uploadToHerald, type OAuthE2E } from '../../../test/helpers/oauth-e2e.js';
import { proveTelegramChat } from '../../../test/helpers/telegram-proof.js';
import { ensureBuilt, expectNoSeriousViolations, launch, openAppPage, openPage, screenshots } from './harness.js';

// Browser globals inside page.evaluate callbacks (this file is compiled for Node).
declare const document: any;

/*
 * A person joins by an invitation link, in Chromium at desktop and phone sizes: sets a password on the
 * invitation page and is signed in (an HttpOnly, SameSite=Strict cookie), signs out and back in with
 * email and password, finds the team's image in the media library, reuses it in a new post from the
 * composer's library picker, and signs out, which ends the session on the server.
 */

let e: OAuthE2E;
let browser: Browser;
let ownerKey: string;
let imageUrl: string;
const PASSWORD = 'a long enough password';
const api = async (method: string, url: string, body?: unknown, key: string | null = ownerKey) =>
  e.env.request(key, method, url, body);

beforeAll(async () => {
  await ensureBuilt();
  e = await createOAuthE2E(() => [telegramSimulator()]);
  browser = await launch();
  ownerKey = (await e.env.createUser()).apiKey;
  const profileId = (await api('POST', '/v1/profiles', { name: 'Shop' })).body.profile._id;
  const chatId = '-1007777777777';
  await proveTelegramChat(e.env, e.sandbox, ownerKey, profileId, chatId);
  expect((await api('POST', '/v1/connect/telegram', { chatId, profileId })).status).toBe(200);
  imageUrl = await uploadToHerald(await e.env.sdk(ownerKey), 'team-photo.png', await solidImage(600, 400), 'image/png');
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await e?.close();
});

describe('signing in as a person', () => {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ]) {
    it(`joins by invitation, signs in by password, reuses a library image and signs out (${width}×${height})`, async () => {
      const w = await openPage(browser, { width, height });
      const { page } = w;
      const email = `person-${width}@example.test`;
      const invite = (await api('POST', '/v1/invite/tokens', { scope: 'all' })).body;

      // The invite link, as the inviter copies it, leads a browser to the invitation page.
      await page.goto(invite.inviteUrl);
      await page.getByRole('heading', { level: 1, name: 'Join your team on Herald' }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/app/invite/${invite.token}`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Name (optional)').fill('Noor');
      await page.getByLabel(/^Password/).fill(PASSWORD);
      await expectNoSeriousViolations(page, 'invitation');
      if (width === 1280) await screenshots(w, 'invite');
      await page.getByRole('button', { name: 'Set password and sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Calendar' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/app/calendar');

      // The session is a cookie no script can read, sent to this site only; no key sits in storage.
      const cookies = await page.context().cookies();
      expect(cookies).toHaveLength(1);
      expect(cookies[0]).toMatchObject({ name: 'herald_session', httpOnly: true, sameSite: 'Strict', path: '/' });
      expect(await page.evaluate(() => document.cookie)).toBe('');
      const user = (await api('GET', '/v1/users')).body.users.find((u: { email: string }) => u.email === email);
      expect(user).toMatchObject({ role: 'member', name: 'Noor' });

      // Sign out, then in again with email and password (a wrong one first).
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(await page.context().cookies()).toEqual([]);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').filter({ hasText: 'Wrong email or password' }).waitFor();
      await expectNoSeriousViolations(page, 'sign-in');
      if (width === 1280) await screenshots(w, 'signin-password');
      w.expectNoConsoleErrors([/status of 401/]);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { level: 1, name: 'Calendar' }).waitFor();

      // A reload keeps the session (the cookie), and the media library shows the team's image.
      await openAppPage(page, e.baseUrl, 'media', 'Media');
      const thumb = page.getByRole('list', { name: 'Uploads' }).getByRole('img', { name: 'team-photo.png' });
      await thumb.waitFor();
      await expect.poll(() => thumb.evaluate((img: any) => img.complete && img.naturalWidth)).toBe(600);
      await expectNoSeriousViolations(page, 'media library');
      if (width === 1280) await screenshots(w, 'media');

      // The composer reuses it from the library; the post carries the library file's URL.
      await openAppPage(page, e.baseUrl, 'compose', 'Compose');
      await page.getByLabel(/^Telegram · /).check();
      await page.getByLabel('Text', { exact: true }).fill(`From the library at ${width}`);
      await page.getByRole('button', { name: 'Choose from library' }).click();
      await page.getByRole('region', { name: 'Media library' }).waitFor();
      await expectNoSeriousViolations(page, 'media picker');
      await page.getByRole('button', { name: 'Use team-photo.png' }).click();
      await page.locator('.media-list li', { hasText: 'team-photo.png' }).waitFor();
      const when = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
      await page.getByLabel('Date and time').fill(`${when}T10:00`);
      await page.locator('#at-zone').selectOption('UTC');
      await page.getByRole('button', { name: 'Schedule' }).click();
      await page.getByText('Post saved (scheduled)').waitFor();
      const posts = (await api('GET', '/v1/posts')).body.posts.filter(
        (p: { content: string }) => p.content === `From the library at ${width}`,
      );
      expect(posts).toHaveLength(1);
      expect(posts[0].mediaItems.map((m: { url: string }) => m.url)).toEqual([imageUrl]);

      // The person changes the password on the Keys & team page (a session must give the current one).
      await openAppPage(page, e.baseUrl, 'team', 'Keys & team');
      await page.getByLabel('Current password').fill(PASSWORD);
      await page.getByLabel('New password (at least 10 characters)').fill(`${PASSWORD} ${width}`);
      await page.getByRole('button', { name: 'Set password' }).click();
      await page.getByRole('status').filter({ hasText: 'Password set.' }).waitFor();

      // Signing out ends the session on the server.
      const [cookie] = await page.context().cookies();
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('button', { name: 'Sign in' }).waitFor();
      const stale = await e.env.request(null, 'GET', '/v1/profiles', undefined, {
        cookie: `herald_session=${cookie.value}`,
      });
      expect(stale.status).toBe(401);
      expect(
        await e.env.ctx.db.kysely.selectFrom('session').selectAll().where('user_id', '=', user._id).execute(),
      ).toEqual([]);
      const login = (password: string) =>
        e.env.request(
          null,
          'POST',
          '/v1/auth/login',
          { email, password },
          { 'x-forwarded-for': `10.9.9.${width % 250}` },
        );
      expect((await login(PASSWORD)).status).toBe(401);
      expect((await login(`${PASSWORD} ${width}`)).status).toBe(200);
      w.expectNoConsoleErrors();
      await w.context.close();
    }, 120_000);
  }
});
