import type { PublishLimit } from '../../../platforms/limits.js';
import { budgetOf, type Budget } from './window.js';

/** What the budgets of a publish are read from: its platform, account and options. */
export interface PacedTarget {
  platform: string;
  accountId: string;
  accountMetadata: Record<string, unknown>;
  platformSpecificData: Record<string, unknown>;
}

/**
 * The budgets one publish of `t` draws from: one per declared limit that applies to it. Keys name the
 * scope and the limit's place in the platform's list, so two limits of one scope are two budgets:
 * `app:<platform>:<i>`, `account:<accountId>:<i>`, `destination:<platform>:<id>:<i>`.
 */
function budgetsFor(limits: readonly PublishLimit[], t: PacedTarget, share: number): Budget[] {
  const out: Budget[] = [];
  limits.forEach((l, i) => {
    if (l.when && !l.when(t.accountMetadata)) return;
    let key: string;
    if (l.scope === 'app') key = `app:${t.platform}:${i}`;
    else if (l.scope === 'account') key = `account:${t.accountId}:${i}`;
    else {
      const id = l.destination?.(t.accountMetadata, t.platformSpecificData) ?? null;
      if (id === null) return;
      key = `destination:${t.platform}:${id}:${i}`;
    }
    out.push(budgetOf(key, l.limit, l.windowMs, l.cost ?? 1, share));
  });
  return out;
}

/**
 * The keys a platform's 429 for this publish pauses: the account (whether or not it declares a limit)
 * and its destinations. Not the app's: a 429 rarely says which limit it was, and pausing the app would
 * stop every other account for one account's throttle.
 */
export function pauseKeysFor(limits: readonly PublishLimit[], t: PacedTarget): string[] {
  const keys = [`account:${t.accountId}`];
  for (const b of budgetsFor(limits, t, 1)) if (b.key.startsWith('destination:')) keys.push(b.key);
  return keys;
}

/** Every budget a publish waits on: its limits' budgets, and its pause keys as budgets of no cost. */
export function pacingFor(
  limits: readonly PublishLimit[],
  t: PacedTarget,
  share: number,
): { budgets: Budget[]; pauseKeys: string[] } {
  const budgets = budgetsFor(limits, t, share);
  const pauseKeys = pauseKeysFor(limits, t);
  const own = new Set(budgets.map((b) => b.key));
  for (const key of pauseKeys) if (!own.has(key)) budgets.push({ key, capacity: 0, windowMs: 0 });
  return { budgets, pauseKeys };
}
