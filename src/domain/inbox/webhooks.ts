import type { AppContext } from '../../context.js';
import { AppError, notFound } from '../../errors.js';
import { hmacSha256Hex } from '../../lib/crypto.js';
import { CATALOGUE, isPlatform } from '../../platforms/catalogue.js';
import type { AccountMatch, Platform, PlatformWebhookRequest } from '../../platforms/types.js';
import type { AccountRow } from '../../store/accounts.js';
import { listAccountsByPlatformUser, listActivePlatformAccounts, listInboxAccountIds } from '../../store/inbox/sync.js';
import { findUser } from '../../store/users.js';
import { platformIO } from './access.js';
import { ingestBatch } from './ingest.js';

/*
 * Platform webhooks: /v1/platform-webhooks/{platform}, where platforms that push (Telegram updates,
 * Meta webhooks) deliver. The adapter checks the request (secret token, signature) and turns it into
 * batches for the accounts it names; Herald stores them like a poll's, so an item pushed and also
 * polled is stored, and announced, once.
 */

/** The secret Herald gives a platform with its callback (Telegram's secret_token: 1-256 of A-Z a-z 0-9 _ -). */
export function platformWebhookSecret(ctx: AppContext, platform: string): string {
  return hmacSha256Hex(ctx.secret, `platform-webhook:${platform}`);
}

function platformWebhookUrl(ctx: AppContext, platform: string): string {
  return `${ctx.config.publicUrl}/v1/platform-webhooks/${platform}`;
}

async function accountsFor(ctx: AppContext, platform: string, match: AccountMatch): Promise<AccountRow[]> {
  if ('platformUserId' in match) {
    const accounts = await listAccountsByPlatformUser(ctx.db.kysely, platform, match.platformUserId);
    return botChatPlatform(platform) ? ownersOnly(accounts) : accounts;
  }
  const all = await listActivePlatformAccounts(ctx.db.kysely, platform);
  return all.filter((a) => match.metadata(JSON.parse(a.metadata) as Record<string, unknown>, a.platform_user_id));
}

/** Platforms whose accounts are chats of the server's shared bot (anyone could name one: see connect/bot.ts). */
const botChatPlatform = (platform: string) =>
  CATALOGUE.some((d) => d.id === platform && d.capabilities.connect === 'bot');

/**
 * A bot chat belongs to the tenant that connected it first: what it receives goes to that tenant's
 * accounts only, even where an older release let another tenant connect the same chat after it.
 */
function ownersOnly(accounts: AccountRow[]): AccountRow[] {
  if (accounts.length < 2) return accounts;
  const first = accounts.reduce((a, b) => (b.created_at < a.created_at ? b : a));
  return accounts.filter((a) => a.tenant_id === first.tenant_id);
}

const hasInbox = async (ctx: AppContext, tenantId: string, cache: Map<string, boolean>) => {
  let ok = cache.get(tenantId);
  if (ok === undefined) {
    const owner = await findUser(ctx.db.kysely, tenantId);
    ok = Boolean(owner && (JSON.parse(owner.addons) as string[]).includes('inbox'));
    cache.set(tenantId, ok);
  }
  return ok;
};

export type WebhookResponse = { status: number; contentType: string; body: string };

/**
 * Handles one pushed request. A refused one (bad signature or secret) stores nothing; an accepted one
 * is stored for each connected account it names whose owner has the inbox add-on (others: nothing).
 */
export async function receivePlatformWebhook(
  ctx: AppContext,
  platform: string,
  req: Omit<PlatformWebhookRequest, 'secret'>,
): Promise<WebhookResponse> {
  const webhook = isPlatform(platform) ? ctx.platforms.get(platform)?.inbox?.webhook : undefined;
  if (!webhook) throw notFound('Platform webhook', 'platform_webhook_not_found');
  const answer = webhook.receive({ ...req, secret: platformWebhookSecret(ctx, platform) });
  if (answer.kind === 'refused') {
    const kind = answer.status === 401 ? 'unauthenticated' : answer.status === 403 ? 'forbidden' : 'invalid';
    throw new AppError(kind, 'platform_webhook_refused', answer.message);
  }
  if (answer.kind === 'reply') return { status: answer.status, contentType: answer.contentType, body: answer.body };
  const owners = new Map<string, boolean>();
  for (const delivery of answer.deliveries) {
    for (const account of await accountsFor(ctx, platform, delivery.account)) {
      if (await hasInbox(ctx, account.tenant_id, owners)) await ingestBatch(ctx, account, delivery.batch);
    }
  }
  return { status: 200, contentType: 'application/json', body: JSON.stringify({ ok: true }) };
}

/** Platforms this process has registered its callback with. */
const registered = new WeakMap<AppContext, Set<Platform>>();

/**
 * Registers Herald's callback with every platform that pushes and has an API for it, while at least
 * one of its accounts uses the inbox (a platform whose pushes nobody reads is left alone). `onlyNew`:
 * skip platforms this process registered already (the poll scheduler's check for a first account).
 */
export async function registerInboxWebhooks(ctx: AppContext, opts: { onlyNew?: boolean } = {}): Promise<Platform[]> {
  const seen = registered.get(ctx) ?? new Set<Platform>();
  registered.set(ctx, seen);
  const done: Platform[] = [];
  for (const platform of ctx.platforms.list()) {
    const register = ctx.platforms.get(platform)?.inbox?.webhook?.register;
    if (!register || (opts.onlyNew && seen.has(platform))) continue;
    if ((await listInboxAccountIds(ctx.db.kysely, [platform], '', 1)).length === 0) continue;
    await register(platformWebhookUrl(ctx, platform), platformWebhookSecret(ctx, platform), platformIO(ctx));
    seen.add(platform);
    done.push(platform);
  }
  return done;
}
