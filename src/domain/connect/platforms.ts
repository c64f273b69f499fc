import type { AppContext } from '../../context.js';
import { AppError, invalid } from '../../errors.js';
import { descriptorOf, isPlatform, PLATFORMS, type Platform } from '../../platforms/catalogue.js';
import type { BotConnect, CredentialsConnect, PlatformAdapter } from '../../platforms/types.js';

/** 400 for a value that is not one of the 13 platforms. */
export function parsePlatform(value: string): Platform {
  if (!isPlatform(value)) {
    throw invalid('invalid_platform', `Unknown platform "${value}"`, {
      fields: { platform: [`must be one of: ${PLATFORMS.join(', ')}`] },
    });
  }
  return value;
}

/** The platform's adapter, or 400 `platform_not_configured` when this server has none for it. */
function adapterFor(ctx: AppContext, platformValue: string): { platform: Platform; adapter: PlatformAdapter } {
  const platform = parsePlatform(platformValue);
  const adapter = ctx.platforms.get(platform);
  if (!adapter) {
    throw new AppError(
      'invalid',
      'platform_not_configured',
      `Connecting ${platform} accounts is not configured on this server`,
      {
        platform,
      },
    );
  }
  return { platform, adapter };
}

/** The adapter's OAuth provider, or 400 when the platform connects another way (credentials, a bot). */
export function oauthAdapterFor(ctx: AppContext, platformValue: string) {
  const { platform, adapter } = adapterFor(ctx, platformValue);
  if (!adapter.oauth) {
    throw invalid('oauth_not_supported', `${platform} does not connect through OAuth; use its own connect endpoint`, {
      platform,
    });
  }
  return { platform, adapter, oauth: adapter.oauth };
}

/** Herald's OAuth callback for a platform, under PUBLIC_URL. */
export function callbackUrl(ctx: AppContext, platform: Platform): string {
  return `${ctx.config.publicUrl}/v1/connect/${platform}/callback`;
}

type ConnectGroup = CredentialsConnect | BotConnect;

/**
 * The connect group of `platform` (a login with credentials, or a bot), as its descriptor declares;
 * 400 `platform_not_configured` when this server has no adapter with that group.
 */
export function connectGroup<K extends ConnectGroup['kind']>(
  ctx: AppContext,
  platform: Platform,
  kind: K,
): { platform: Platform; connect: Extract<ConnectGroup, { kind: K }> } {
  const connect = ctx.platforms.get(platform)?.connect;
  if (connect?.kind !== kind) {
    const name = descriptorOf(platform)?.name ?? platform;
    throw new AppError('invalid', 'platform_not_configured', `${name} is not configured on this server`, { platform });
  }
  return { platform, connect: connect as Extract<ConnectGroup, { kind: K }> };
}
