/*
 * The documented limits that bound publishing on a platform, declared in its descriptor
 * (`PlatformDescriptor.limits`). The engine paces every publish by them (domain/publishing/pacing): a
 * publish whose budget is spent waits for it instead of being sent to fail.
 *
 * Each limit is a budget of `limit` units in any `windowMs` (a sliding window: never more in any window,
 * a burst of the whole budget allowed). A publish costs `cost` units (default 1). Scopes:
 * - `app`: the deployment's client or bot (every account published through this server's credentials);
 * - `account`: one connected account;
 * - `destination`: one place an account publishes to (a chat, a page, a board), named by `destination`.
 */

type LimitScope = 'app' | 'account' | 'destination';

export interface PublishLimit {
  readonly scope: LimitScope;
  /** Units allowed in `windowMs`. */
  readonly limit: number;
  readonly windowMs: number;
  /** Units one publish takes (Bluesky: a createRecord is 3 write points). Default 1. */
  readonly cost?: number;
  /** Only targets whose account metadata passes (Telegram: the per-group limit). Default: every target. */
  readonly when?: (accountMetadata: Record<string, unknown>) => boolean;
  /** For `destination`: the destination's id from the account metadata and the target's options (null: none). */
  readonly destination?: (
    accountMetadata: Record<string, unknown>,
    platformSpecificData: Record<string, unknown>,
  ) => string | null;
  /** The documentation page that states the limit. */
  readonly cite: string;
}

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
