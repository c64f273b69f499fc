import { createHash } from 'node:crypto';
import type { SimulatorState } from './types.js';

/*
 * What a simulator's insights endpoints report for one published item (docs/sandbox.md, `POST /_metrics`):
 * the numbers set for it, else numbers that grow with its age, a pure function of its id and the whole
 * hours since it was published, so a test can compute both reads of an item an hour apart.
 */

export const SANDBOX_METRICS = [
  'impressions',
  'reach',
  'likes',
  'comments',
  'shares',
  'saves',
  'clicks',
  'views',
] as const;
/** Besides the item metrics, `followers` sets an account's followers (postId: the account's platform id). */
const ACCEPTED: readonly string[] = [...SANDBOX_METRICS, 'followers'];
export type SandboxMetrics = Record<(typeof SANDBOX_METRICS)[number], number>;

const KEY = 'metrics:set';

function setMetrics(state: SimulatorState): Map<string, Partial<SandboxMetrics>> {
  let m = state.data.get(KEY) as Map<string, Partial<SandboxMetrics>> | undefined;
  if (!m) {
    m = new Map();
    state.data.set(KEY, m);
  }
  return m;
}

/** `POST /_metrics {postId, metrics}`: the body's numbers replace those reported for that item. Null: refused, with why. */
export function applyMetrics(state: SimulatorState, body: unknown): string | null {
  const b = (body ?? {}) as { postId?: unknown; metrics?: unknown };
  if (typeof b.postId !== 'string' || !b.postId) return 'postId must be the platform id of a published item';
  if (!b.metrics || typeof b.metrics !== 'object') return 'metrics must be an object of counts';
  const out: Partial<SandboxMetrics> = {};
  for (const [k, v] of Object.entries(b.metrics as Record<string, unknown>)) {
    if (!Number.isInteger(v) || (v as number) < 0) return `metrics.${k} must be a whole number >= 0`;
    if (ACCEPTED.includes(k)) (out as Record<string, number>)[k] = v as number;
  }
  setMetrics(state).set(b.postId, { ...setMetrics(state).get(b.postId), ...out });
  return null;
}

/**
 * The deterministic growth: each metric is a per-item base (from a hash of the id) times
 * (1 + whole hours since publishing), capped at 90 days of growth.
 */
export function grownMetrics(postId: string, publishedAtMs: number, nowMs: number): SandboxMetrics {
  const hours = Math.min(90 * 24, Math.max(0, Math.floor((nowMs - publishedAtMs) / 3_600_000)));
  const h = createHash('sha256').update(postId).digest();
  const base = (i: number, span: number, min: number) => min + (h[i]! % span);
  const f = 1 + hours;
  const impressions = base(0, 200, 100) * f;
  return {
    impressions,
    reach: Math.floor((impressions * base(1, 30, 60)) / 100),
    likes: base(2, 20, 5) * f,
    comments: base(3, 5, 1) * f,
    shares: base(4, 5, 1) * f,
    saves: base(5, 5, 0) * f,
    clicks: base(6, 10, 2) * f,
    views: base(7, 200, 50) * f,
  };
}

/** What the insights report for `postId` now: the set numbers over the grown ones. */
export function metricsFor(
  state: SimulatorState,
  postId: string,
  publishedAtMs: number,
  nowMs: number,
): SandboxMetrics {
  return { ...grownMetrics(postId, publishedAtMs, nowMs), ...setMetrics(state).get(postId) };
}

/**
 * An account's followers (subscribers): `POST /_metrics {postId: <account id>, metrics: {followers}}`
 * sets them; otherwise a fixed number from the id.
 */
export function subscribersOf(state: SimulatorState, accountId: string): number {
  return followersSet(state, accountId) ?? 1000 + createHash('sha256').update(accountId).digest()[0]! * 7;
}

/** The followers `POST /_metrics` set for an account, or undefined (a simulator with its own default). */
export function followersSet(state: SimulatorState, accountId: string): number | undefined {
  return (setMetrics(state).get(accountId) as { followers?: number } | undefined)?.followers;
}

/**
 * What one UTC day added to an item's numbers (daily reports such as YouTube Analytics): the grown
 * metrics at the day's end (or `nowMs`) less those at its start (or publishing). Deterministic per item
 * and day.
 */
export function dayMetrics(postId: string, publishedAtMs: number, dayStartMs: number, nowMs: number): SandboxMetrics {
  const from = Math.max(dayStartMs, publishedAtMs);
  const to = Math.min(dayStartMs + 86_400_000, nowMs);
  const end = grownMetrics(postId, publishedAtMs, to);
  const start = grownMetrics(postId, publishedAtMs, from);
  const out = {} as SandboxMetrics;
  for (const k of SANDBOX_METRICS) out[k] = Math.max(0, end[k] - start[k]);
  return out;
}
