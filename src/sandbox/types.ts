import type { FastifyInstance, FastifyReply } from 'fastify';
import type { FaultInjector, FaultOp } from './faults.js';
import type { InboundTextLimit } from './inbound-guard.js';
import type { RateLimiter } from './rate-limits.js';

/** One published item as `GET /sandbox/<platform>/_inspect` shows it. */
export interface InspectedPost {
  id: string;
  text: string;
  media: { type: string; url?: string; mimeType?: string; size?: number; altText?: string }[];
  /** Id of the post this one replies to (threads), if any. */
  replyTo?: string | null;
  /** Platform account the post was made as. */
  author?: string | null;
  createdAt: string;
  /** Set once the item was deleted on the platform; deleted items stay listed. */
  deleted?: boolean;
  /** Where it was published, when the platform has destinations (channel, organization page...). */
  destination?: string | null;
  /** Anything else worth asserting on (link card, parse mode, organization...). */
  extra?: Record<string, unknown>;
}

/** Settings of a simulated platform (`POST /sandbox/<platform>/_config`). */
export interface SimulatorConfig {
  /** How long uploaded media stay "in progress" before the platform reports them ready. Default 1,000 ms. */
  processingMs: number;
  /** Whether the platform's documented rate limits are enforced (sandbox/rate-limits.ts). Default true. */
  rateLimits: boolean;
  /** Every answer of the platform's own routes is delayed by a uniform random time in [min, max] ms. Default [0, 0]. */
  latencyMs: [number, number];
}

export const DEFAULT_SIMULATOR_CONFIG: SimulatorConfig = { processingMs: 1_000, rateLimits: true, latencyMs: [0, 0] };

/** Per-simulator state shared by the framework routes and the simulator's own routes. */
export interface SimulatorState {
  readonly platform: string;
  readonly posts: InspectedPost[];
  readonly faults: FaultInjector;
  /** Settings of the simulated platform (`POST /_config`). */
  readonly config: SimulatorConfig;
  /** Absolute base URL of this simulator, e.g. http://127.0.0.1:4100/sandbox/twitter. */
  baseUrl(): string;
  /** Arbitrary per-simulator data (issued tokens, uploads, chats...). */
  readonly data: Map<string, unknown>;
  /** Requests the simulator received (method, path), newest last; for asserting call counts. */
  readonly calls: { method: string; path: string; at: string }[];
  /** The platform's rate-limit counters, on the simulator's clock; `_reset` clears them, `_config {rateLimits: false}` disables them. */
  readonly limits: RateLimiter;
}

export interface Simulator {
  readonly platform: string;
  /** It has an insights API: `POST /_metrics` sets what it reports (sandbox/metrics.ts); otherwise that route is a 400. */
  readonly insights?: boolean;
  /** The operations whose calls `POST /_faults {op}` can fail (`publish` at least). */
  readonly faultOps: readonly FaultOp[];
  /**
   * The longest text the platform takes for each kind of item `POST /_inbound` injects (`message`,
   * `comment`, ...); a longer one is refused with a 400 that names the platform's rule (inbound-guard.ts).
   */
  readonly inboundTextLimits?: Readonly<Record<string, InboundTextLimit>>;
  /** The simulator's clock (epoch ms) that its rate-limit windows are computed on. Default: real time. */
  readonly now?: () => number;
  /** Registers the platform's real wire-protocol routes, relative to /sandbox/<platform>. */
  register(app: FastifyInstance, state: SimulatorState): void | Promise<void>;
  /**
   * Settings of the simulated platform besides `processingMs` (`POST /_config`, e.g. TikTok's creator
   * options): applies the keys of `body` it knows and answers its current settings (merged into the
   * answer), or `{error}` for a bad value, in which case nothing of the request is applied.
   */
  configure?(body: Record<string, unknown>, state: SimulatorState): Record<string, unknown> | { error: string };
}

/**
 * The `ambiguous` fault: the simulator has accepted and recorded the post, then the connection drops
 * before any response, as with a timeout after sending.
 */
/** Marks a published item deleted in `_inspect` (it stays listed). */
export function markDeleted(
  state: SimulatorState,
  id: string,
  match: (p: InspectedPost) => boolean = () => true,
): void {
  const item = state.posts.find((p) => p.id === id && match(p));
  if (item) item.deleted = true;
}

export function hangUp(reply: FastifyReply): void {
  reply.hijack();
  reply.raw.destroy();
}
