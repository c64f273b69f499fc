import type { ErrorCode } from '../error-codes.js';
import type { TObject, TProperties, TSchema } from '@sinclair/typebox';
import type { Destination, DestinationKind, PlatformProfile } from './types.js';

/*
 * How a platform's destination selection looks on the hosted API's wire. Each platform declares its own
 * (paths, field names, item shapes) in its folder; one registrar per side (http/routes/connect and
 * http/routes/accounts) serves every declaration with the same flow: the temp token, X-Connect-Token or
 * pending data token checks, the tenant and profile checks, the platform's list for the token (a chosen
 * id must be in it), saving with a connection log, redirect_url and the error envelope.
 *
 * Generic field names, as the hosted API uses them on every platform: `profileId`, `tempToken`,
 * `pendingDataToken` and `redirect_url`. A platform's schemas include those it takes; the rest of a
 * body (`userProfile`, `refreshToken`, `expiresIn`) is accepted and ignored, since Herald keeps the
 * tokens and the profile server-side behind the temp token.
 */

/** What a selection body names: a destination id, the user themself (`id: null`), or a field problem. */
export type DestinationChoice =
  | { id: string | null }
  | { invalid: { message: string; fields: Record<string, string[]> } };

/** A listing: `{[key]: item[]}` and, on the account side, fields about the current selection. */
export interface DestinationListWire {
  /** The response's array (`organizations`, `pages`, `boards`...). */
  key: string;
  item: TObject;
  present(destination: Destination): Record<string, unknown>;
}

/** When a body names an id that is not in the platform's list for the token. */
export interface DestinationNotFound {
  code: ErrorCode;
  status: 400 | 404;
  field: string;
  message: string;
}

export interface ConnectDestinationsWire {
  list: DestinationListWire & {
    /** Under /v1, e.g. `/connect/linkedin/organizations`. */
    path: string;
    summary: string;
    /** The whole query: `tempToken` (or `pendingDataToken`), `profileId` when the platform takes it. */
    query: TObject;
    /** Headers the call requires (Pinterest, Snapchat: `x-connect-token`, lower case); absent: an API key does too. */
    headers?: TObject;
    /** A comma list of ids that restricts the answer (LinkedIn `orgIds`), and how many it may hold. */
    filter?: { field: string; max: number };
    /**
     * The whole answer, when it is more than `{[key]: item[]}` (Slack: `{team, channels}`): its schema,
     * and how it is made from the destinations and the connected user (at connect, the profile the
     * OAuth exchange read; with `accountId`, the account's).
     */
    answer?: { schema: TSchema; present(destinations: Destination[], user: PlatformProfile): Record<string, unknown> };
  };
  select: {
    path: string;
    summary: string;
    /** The whole body: `profileId`, `tempToken` (or `pendingDataToken`), `redirect_url`, the choice. */
    body: TObject;
    choose(body: Record<string, unknown>): DestinationChoice;
    /**
     * Which id of a listed destination the choice names, when not the destination's own (Instagram: the
     * body names the Facebook Page, the destination is the professional account linked to it).
     */
    idOf?(destination: Destination): string | null;
    /**
     * The body (or listing query) field that names the pending connection by its user's platform id, in
     * place of a temp token (Discord's `guildId`): the caller's live pending connection of that profile
     * whose user is that id. Such a connection is not used up by a selection, so several destinations
     * can be bound before it expires.
     */
    pendingBy?: string;
    notFound: DestinationNotFound;
    message: string;
    /** What the answer's `account` adds to `{accountId, platform, username, displayName, profilePicture, isActive}`. */
    account: { properties: TProperties; present(destination: Destination | null): Record<string, unknown> };
    /** Fixed top-level fields of the answer besides message, redirect_url and account (LinkedIn `bulkRefresh`). */
    extra?: { properties: TProperties; value: Record<string, unknown> };
  };
  /**
   * How a headless flow with a redirect_url hands the choice to the caller. With a `step`, the redirect
   * carries `tempToken`, `userProfile`, `connect_token`, `platform`, `profileId` and `step` (Facebook,
   * Pinterest, Google Business, Snapchat). With `pendingData`, it carries a `pendingDataToken` (alone
   * when there is no `step`: LinkedIn), which GET /v1/connect/pending-data answers once with the temp
   * token, the user and the destinations under `pendingData.key`, and which the selection routes accept
   * in place of `tempToken`.
   */
  headless: { step: string; pendingData?: PendingDataWire } | { step?: undefined; pendingData: PendingDataWire };
  /**
   * The listing and the selection also take `accountId` in place of a pending token: a connected account
   * of the platform, in the caller's scope, whose tokens list and connect another destination as a new
   * account of `profileId` (Slack: another channel of the same workspace, no new consent). Nothing is
   * used up.
   */
  reuseAccount?: boolean;
  /**
   * With neither a pending token nor `accountId`, the listing starts the OAuth flow and answers
   * `{authUrl, state}` as GET /v1/connect/{platform} does (its path shadows that route), headless when
   * the query names `redirect_url` (or `redirectUrl`).
   */
  startsOAuth?: boolean;
}

/** What GET /v1/connect/pending-data shows of the destinations: `selectionType` and `{[key]: item[]}`. */
interface PendingDataWire extends DestinationListWire {
  selectionType: string;
}

export interface AccountDestinationsWire {
  list: DestinationListWire & {
    /** Under /v1/accounts/{accountId}/, e.g. `linkedin-organizations`. */
    path: string;
    summary: string;
    /** Fields about the current choice beside the list (Facebook `selectedPageId`, `cached`). */
    current?: { properties: TProperties; present(metadata: Record<string, unknown>): Record<string, unknown> };
  };
  select: {
    /** Under /v1/accounts/{accountId}/, answered to PUT. */
    path: string;
    summary: string;
    body: TObject;
    choose(body: Record<string, unknown>): DestinationChoice;
    notFound: DestinationNotFound;
    message: string;
    /** The answer: `{message, account}` (the SocialAccount) or `{message, [key]: {id, name}}`. */
    respond: { with: 'account' } | { with: 'selected'; key: string };
  };
}

/** A descriptor's `capabilities.destinations`: the kind (which the adapter's group must match) and the wire. */
export interface DestinationsDeclaration {
  kind: DestinationKind;
  connect?: ConnectDestinationsWire;
  account?: AccountDestinationsWire;
}
