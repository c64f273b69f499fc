/** The five ways a simulator can be told to fail its next calls (POST /sandbox/<p>/_faults). */
export const FAULT_KINDS = ['rate_limited', 'unavailable', 'rejected', 'auth', 'ambiguous'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * The operations a fault can target (`op` of POST /_faults, `publish` by default). `processing` makes the
 * platform's media processing end in an error; `token` is the token endpoint. A simulator declares the
 * ones it has; the others answer 400.
 */
export const FAULT_OPS = [
  'publish',
  'upload',
  'processing',
  'token',
  'lookup',
  'delete',
  'comment',
  'message',
  'review',
  'insights',
  'destinations',
] as const;
export type FaultOp = (typeof FAULT_OPS)[number];

interface PendingFault {
  kind: FaultKind;
  remaining: number;
  skip: number;
}

/** Faults armed per operation: each operation counts its own calls. */
export class FaultInjector {
  private readonly armed = new Map<FaultOp, PendingFault>();

  /**
   * The next `count` calls of `op` fail as `kind`, after `after` more that succeed (a thread's replies:
   * `after: 1` lets the root through and fails the first reply); count 0 clears that operation.
   */
  set(kind: FaultKind, count: number, after = 0, op: FaultOp = 'publish'): void {
    if (count <= 0) this.armed.delete(op);
    else this.armed.set(op, { kind, remaining: count, skip: Math.max(0, after) });
  }

  /** Forgets every armed fault. */
  clear(): void {
    this.armed.clear();
  }

  /** Called by a simulator at the start of each call of `op`: the fault to apply, if any. */
  take(op: FaultOp = 'publish'): FaultKind | null {
    const f = this.armed.get(op);
    if (!f) return null;
    if (f.skip > 0) {
      f.skip--;
      return null;
    }
    f.remaining--;
    if (f.remaining <= 0) this.armed.delete(op);
    return f.kind;
  }

  /** What is still armed, by operation. */
  get pending(): Partial<Record<FaultOp, { kind: FaultKind; count: number; after: number }>> {
    return Object.fromEntries(
      [...this.armed].map(([op, f]) => [op, { kind: f.kind, count: f.remaining, after: f.skip }]),
    );
  }
}
