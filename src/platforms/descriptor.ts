import type { Config } from '../config.js';
import type { DestinationsDeclaration } from './destinations.js';
import type { PublishLimit } from './limits.js';
import type { FieldCheck } from './rules/helpers.js';
import type { PlatformMediaLimits } from './rules/media-limits.js';
import type { RuleIssue, TargetDraft, TargetRule, TextRule } from './rules/types.js';
import type { PlatformTool } from './tools.js';
import type { PlatformAdapter } from './types.js';

/*
 * One platform, described once: how its text is counted, its limits and media rules, the
 * platformSpecificData it understands, how accounts connect, and how to build its adapter. Each
 * platform folder exports one descriptor; platforms/catalogue.ts lists them, and everything that lists
 * or depends on platforms (validation, media limits, unpublish, account metadata, connect routes, the
 * OpenAPI enums) reads them from there. A platform without an adapter yet still has its rules, so its
 * posts are validated; connecting it answers `platform_not_configured`.
 */

/** How accounts of the platform connect: an OAuth 2 grant, credentials (Bluesky app password), or a bot. */
type ConnectKind = 'oauth2' | 'credentials' | 'bot';

/**
 * What the platform's API offers, whether or not this server has an adapter for it yet: the spec's
 * lists (which platforms can unpublish, which have pages or boards to choose). An adapter implements
 * the matching capability groups (types.ts); the contract suite checks the two agree.
 */
interface DeclaredCapabilities {
  connect: ConnectKind;
  /** The destinations an account chooses among (pages, organizations, boards...) and their routes' wire. */
  destinations?: DestinationsDeclaration;
  unpublish?: boolean;
  /**
   * The platform's API edits a published post's text (the hosted contract's `editPost` names these);
   * `POST /v1/posts/{postId}/edit` elsewhere is a 400 PLATFORM_LIMITATION. The adapter edits with `editText`.
   */
  editText?: boolean;
  /** Finding a post after an unknown outcome (by idempotency key, or by content and time). */
  lookup?: boolean;
  /** Media the platform processes after the upload, which the engine waits for (types.ts ProcessingCapability). */
  processing?: boolean;
  /**
   * Whether a published post may be recycled (re-posted as scheduled copies, domain/recycling). Default
   * true; false where the platform refuses or penalises the same upload again.
   */
  recycling?: boolean;
}

/**
 * How the dashboard draws the platform (GET /v1/platforms): a short label for entries and lists, and a
 * mark (a text glyph on a colour, so no image to load). The colours are the dashboard's own choice near
 * each brand's colour, darkened where white text needs it to stay readable (WCAG AA, 4.5:1): common
 * values, not taken from a brand guide.
 */
interface PlatformDisplay {
  /** Short label ("X", "Google Business"); `name` is the full one. */
  readonly label: string;
  /** One or two characters drawn on `colour`. */
  readonly glyph: string;
  /** `#rrggbb`, the mark's background under white text. */
  readonly colour: string;
}

/**
 * How the platform shows what it is sent, for the dashboard's previews. `crop`: the shapes its feed shows
 * an image in, as [narrowest, widest] width / height (a picture outside is cropped to the nearest; both
 * equal: a fixed frame); none: the picture is shown whole. `card`: a link card is made from the first URL
 * of a post without media. `thread`: the post's thread items are shown as replies under it.
 */
interface PreviewRules {
  readonly crop?: readonly [narrowest: number, widest: number];
  readonly card?: boolean;
  readonly thread?: boolean;
}

/**
 * The texts of the dashboard's connect form of a platform that connects without OAuth (credentials: a
 * handle and a secret; bot: a chat). Absent: the form's plain labels.
 */
interface ConnectFormTexts {
  readonly handlePlaceholder?: string;
  readonly secretLabel?: string;
  readonly secretPlaceholder?: string;
  readonly chatLabel?: string;
}

/** What an account rule sees of a target: its options, and the media it will send when known. */
export interface AccountCheckTarget {
  platformSpecificData: Record<string, unknown>;
  media?: TargetDraft['media'];
  /** The probed duration in seconds of each of `media` Herald stores itself (null: unknown, or not a video). */
  mediaDurationsSec?: Array<number | null>;
}

/** What Herald probed of a stored media item (null: not one of Herald's uploads, or not probed). */
export type MediaShape = { width: number | null; height: number | null; durationSec: number | null } | null;

export interface PlatformDescriptor<Id extends string = string> {
  readonly id: Id;
  /** Display name ("LinkedIn", "X"). */
  readonly name: string;
  /** Its label and mark in the dashboard. */
  readonly display: PlatformDisplay;
  /** How the dashboard previews a post to it. */
  readonly preview: PreviewRules;
  /** Texts of the dashboard's connect form (credentials and bot platforms). */
  readonly connectForm?: ConnectFormTexts;
  /** Limits on the text of a target, and of each of its thread items, in the platform's own measures. */
  readonly text: readonly TextRule[];
  /** The platformSpecificData keys the platform understands; any other key is refused. */
  readonly platformSpecificData: Readonly<Record<string, FieldCheck>>;
  /** The rest of its validation: media counts, kinds and formats, options that depend on each other. */
  readonly check: TargetRule;
  /**
   * Rules that need the target's connected account: its metadata (a default destination, the rules of
   * destinations it has cached). Run when a post that will be published is created or its targets are
   * replaced, once the account is known, before anything is stored. Fields as in `check`. (TikTok: the
   * creator's posting options as last fetched; its adapter checks them again when it publishes.)
   */
  readonly checkAccount?: (target: AccountCheckTarget, accountMetadata: Record<string, unknown>) => RuleIssue[];
  /**
   * Notes on a valid target that are not errors (YouTube: this video will be a Short), from its media as
   * Herald probed them (`shapes`, one per media item): the `warnings` of POST /v1/tools/validate/post.
   */
  readonly warnings?: (
    target: { media: TargetDraft['media']; platformSpecificData: Record<string, unknown> },
    shapes: MediaShape[],
  ) => string[];
  /** Media limits only the bytes can tell (size, dimensions, duration), for the target's options. */
  mediaLimits(platformSpecificData: Record<string, unknown>): PlatformMediaLimits;
  /** Account metadata keys shown in the API (never anything token-like). */
  readonly accountMetadata: readonly string[];
  /**
   * The metadata key holding the platform-side id of what the account publishes as, when that is not
   * the signed-in user (a Page, a location, an organization): shown as the account's `platformUserId`
   * once chosen. Absent: the signed-in user's id is the account's.
   */
  readonly accountIdKey?: string;
  /** Top-level post field whose settings apply to this platform's targets (TikTok: `tiktokSettings`). */
  readonly postSettings?: string;
  /** OAuth scopes Herald asks for (empty when the platform connects another way). */
  readonly scopes: readonly string[];
  readonly capabilities: DeclaredCapabilities;
  /**
   * The documented limits that bound publishing (limits.ts), per app, account and destination, each with
   * the page that states it. The engine paces publishes by them; none declared: paced only by 429s.
   */
  readonly limits?: readonly PublishLimit[];
  /**
   * Routes only this platform's API offers (tools.ts): one generic registrar puts them under
   * /v1/accounts/{accountId}/<path> (or a path of their own) with the account, token refresh and error
   * mapping every such route needs.
   */
  readonly tools?: readonly PlatformTool[];
  /** Builds the adapter from configuration; absent for a platform Herald cannot publish to yet. */
  readonly createAdapter?: (config: Config) => PlatformAdapter | null;
}
