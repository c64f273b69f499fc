import type { Static, TObject, TSchema } from '@sinclair/typebox';
import type { AccountCredentials, PlatformAdapter, PlatformIO } from './types.js';

/*
 * The tools group: routes one platform's API offers and no other (LinkedIn mention lookup, Reddit
 * subreddits and flairs, Google Business menus...). A platform declares them in its folder, on its
 * descriptor (`tools`); one registrar (http/routes/platform-tools.ts) registers every catalogue entry's
 * tools, so nothing outside the platform's folder names the platform. The registrar does what every
 * such route needs: it loads the account (tenant and profile scope checked, 404 as for any account),
 * refuses an account of another platform (400 `not_<platform>_account`), answers 400
 * `platform_not_configured` when this server has no adapter for the platform, refreshes an expired token
 * once the way publishing does, maps PlatformError kinds to the error envelope, merges the account
 * metadata the handler returns, and puts the route in the OpenAPI document.
 *
 * Where the account comes from (`account`):
 * - `path` (default): `path` is relative, the route is `/v1/accounts/{accountId}/<path>`.
 * - `query`: `path` is absolute under /v1 (`/reddit/search`); the account is the `accountId` query
 *   parameter, which the registrar adds to the query schema.
 * - `body`: `path` is absolute under /v1 (`/twitter/retweet`, `/discord/dms`); the account is the `accountId` field of
 *   the JSON body, which the registrar adds to the body schema (the hosted API's engagement routes).
 * - `none`: `path` is absolute under /v1 (`/tools/validate/subreddit`); no account, the handler gets
 *   only the adapter, the input and a PlatformIO (public platform data).
 */

type ToolMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** What a tool's handler gets. `A` is the platform's own adapter type, as its factory builds it. */
export interface ToolCall<A extends PlatformAdapter, Q, B> {
  /** The adapter this server built for the platform (configured base URLs, client ids). */
  adapter: A;
  /** The account's decrypted credentials and metadata; null for a tool with `account: 'none'`. */
  account: AccountCredentials | null;
  query: Q;
  body: B;
  /** Path parameters besides `accountId` (a tool's own `:name` segments). */
  params: Record<string, string>;
  /** Calls recorded like any adapter call; tenant-chosen URLs go through `io.fetchUrl`. */
  io: PlatformIO;
  /**
   * A URL that reconnects the account (Herald's OAuth connect for its profile), asking for the platform's
   * posting scopes plus `extraScopes`; null for a tool without an account.
   */
  reconnectUrl(extraScopes?: readonly string[]): Promise<string | null>;
  /**
   * The account's follower counts as Herald's daily account read kept them: the last read of each UTC day
   * from `since` to `until` (YYYY-MM-DD, both included), oldest first. Empty for a tool without an account.
   */
  followerHistory(since: string, until: string): Promise<{ date: string; value: number }[]>;
  /**
   * Connects another destination of the account's platform user (a location, a page...) as a new account
   * of `profileId`, reusing this account's grant. With `onePerProfile`, a profile that already has an
   * account of this platform is a 409. Fails for a tool without an account.
   */
  connectDestination(input: {
    profileId: string;
    destinationId: string;
    onePerProfile?: boolean;
  }): Promise<ConnectedAccount>;
}

/** An account `connectDestination` made. */
export interface ConnectedAccount {
  accountId: string;
  platform: string;
  username: string;
  displayName: string | null;
  isActive: boolean;
  metadata: Record<string, unknown>;
}

/** What a handler answers: the response body, and account metadata to merge into the account (if any). */
interface ToolAnswer<R> {
  body: R;
  /** Keys merged into the account's metadata after the call (the account's selected subreddit, ...). */
  accountMetadata?: Record<string, unknown>;
}

export interface PlatformTool<
  A extends PlatformAdapter = PlatformAdapter,
  Q extends TObject | undefined = TObject | undefined,
  B extends TSchema | undefined = TSchema | undefined,
  R extends TSchema = TSchema,
> {
  method: ToolMethod;
  /** `reddit-flairs` (under /v1/accounts/{accountId}/) or, with `account` `query`/`body`/`none`, `/reddit/search`. */
  path: string;
  /** Where the account comes from (see above); default `path`. */
  account?: 'path' | 'query' | 'body' | 'none';
  summary: string;
  description?: string;
  /** OpenAPI tags; default the platform's display name. */
  tags?: string[];
  /** Query and body schemas, matching the hosted API's wire exactly. */
  querystring?: Q;
  body?: B;
  /** The success body (status `status`, default 200). */
  response: R;
  /** The add-on the caller needs (402 without it, before anything else), as the hosted API gates analytics. */
  addon?: 'analytics';
  /** Error bodies that differ from the envelope, by status (a 412 carrying `scopeStatus`). */
  errors?: Record<number, TSchema>;
  status?: 200 | 201;
  /**
   * The route changes something (read-only keys are refused). Default: every method but GET. Set it for a
   * GET that writes, or to false for a POST that only reads.
   */
  write?: boolean;
  handler(
    call: ToolCall<A, Q extends TObject ? Static<Q> : undefined, B extends TSchema ? Static<B> : undefined>,
  ): Promise<ToolAnswer<Static<R>>>;
}

/**
 * Declares one tool with its input and output types taken from its schemas. `A` names the platform's
 * adapter type, so the handler can call what only that adapter has: `platformTool<RedditAdapter>()({...})`.
 */
export function platformTool<A extends PlatformAdapter = PlatformAdapter>() {
  return <
    Q extends TObject | undefined = undefined,
    B extends TSchema | undefined = undefined,
    R extends TSchema = TSchema,
  >(
    tool: PlatformTool<A, Q, B, R>,
    // The registry holds tools of every adapter and schema, each checked against its own types here; the
    // handler's parameter makes PlatformTool invariant in them, hence the cast through unknown.
  ): PlatformTool => tool as unknown as PlatformTool;
}
