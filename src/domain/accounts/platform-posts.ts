import type { AppContext } from '../../context.js';
import { AppError, invalid } from '../../errors.js';
import { descriptorOf } from '../../platforms/catalogue.js';
import { createPlatformIO } from '../../platforms/io.js';
import { PlatformError, toPlatformError, type ListedPost, type Platform } from '../../platforms/types.js';
import { findAccount, type AccountRow } from '../../store/accounts.js';
import type { Principal } from '../principal.js';
import { getVisibleAccount } from './manage.js';
import { refreshAccountTokens } from './refresh-tokens.js';
import { accountCredentials } from './save-account.js';
import { toolFailure } from './tool-failure.js';

/** How many posts the listing answers, as the hosted API does. */
export const PLATFORM_POSTS_LIMIT = 25;
/**
 * How far back the listing looks. Platforms list newest first and the listing stops at 25, so this only
 * bounds the request (X refuses a `start_time` before November 2010).
 */
const LISTING_SINCE = new Date('2011-01-01T00:00:00Z');

const expired = (platform: string) =>
  new AppError(
    'unauthenticated',
    'TOKEN_EXPIRED',
    `The ${platform} account's authorization expired and could not be refreshed; reconnect the account`,
    { platform },
  );

/**
 * GET /v1/accounts/{id}/posts: the account's most recent posts read live from its platform (those made
 * outside Herald too), through the adapter's `analytics.listPosts`. A platform whose API lists no
 * account posts answers 400 PLATFORM_LIMITATION. An expired token is refreshed first; a refresh that
 * cannot recover it is a 401 TOKEN_EXPIRED.
 */
export async function listPlatformPosts(
  ctx: AppContext,
  caller: Principal,
  accountId: string,
): Promise<{ row: AccountRow; posts: ListedPost[] }> {
  let row = await getVisibleAccount(ctx, caller, accountId);
  const descriptor = descriptorOf(row.platform);
  const adapter = ctx.platforms.get(row.platform as Platform);
  const name = descriptor?.name ?? row.platform;
  if (!descriptor || !adapter)
    throw invalid('platform_not_configured', `${name} is not configured on this server`, { platform: row.platform });
  const listPosts = adapter.analytics?.listPosts?.bind(adapter.analytics);
  if (!listPosts)
    throw invalid('PLATFORM_LIMITATION', `${name}'s API does not list an account's posts`, { platform: row.platform });
  const io = createPlatformIO({
    now: () => ctx.clock.now(),
    outbound: { allowPrivate: ctx.config.outboundAllowPrivate },
  });

  const refresh = async () => {
    const outcome = await refreshAccountTokens(ctx, row, { io }).catch((error) => {
      throw toolFailure(descriptor, toPlatformError(error));
    });
    if (outcome === 'disconnected') throw expired(name);
    if (outcome !== 'refreshed') return false;
    row = (await findAccount(ctx.db.kysely, caller.tenantId, row.account_id)) ?? row;
    return true;
  };
  if (row.token_expires_at && Date.parse(row.token_expires_at) <= ctx.clock.now().getTime()) await refresh();

  const call = () => listPosts(accountCredentials(ctx, row), LISTING_SINCE, PLATFORM_POSTS_LIMIT, io);
  try {
    try {
      return { row, posts: (await call()).slice(0, PLATFORM_POSTS_LIMIT) };
    } catch (error) {
      // As the tools do: an `auth` answer gets one refresh and one more try.
      if (!(error instanceof PlatformError && error.kind === 'auth')) throw error;
      if (!(await refresh())) throw expired(name);
      return { row, posts: (await call()).slice(0, PLATFORM_POSTS_LIMIT) };
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    const failure = toPlatformError(error);
    if (failure.kind === 'auth') throw expired(name);
    throw toolFailure(descriptor, failure);
  }
}
