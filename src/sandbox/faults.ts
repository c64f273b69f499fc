/** The five ways a simulator can be told to fail its next publish calls (POST /sandbox/<p>/_faults). */
export const FAULT_KINDS = ['rate_limited', 'unavailable', 'rejected', 'auth', 'ambiguous'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export class FaultInjector {
  private kind: FaultKind | null = null;
  private remaining = 0;
  private skip = 0;

  /**
   * The next `count` publish calls fail as `kind`, after `after` more that succeed (a thread's replies:
   * `after: 1` lets the root through and fails the first reply); count 0 clears.
   */
  set(kind: FaultKind, count: number, after = 0): void {
    this.kind = count > 0 ? kind : null;
    this.remaining = Math.max(0, count);
    this.skip = count > 0 ? Math.max(0, after) : 0;
  }

  /** Called by a simulator at the start of each publish call: the fault to apply, if any. */
  take(): FaultKind | null {
    if (!this.kind || this.remaining <= 0) return null;
    if (this.skip > 0) {
      this.skip--;
      return null;
    }
    this.remaining--;
    const kind = this.kind;
    if (this.remaining === 0) this.kind = null;
    return kind;
  }

  get pending(): { kind: FaultKind | null; count: number; after: number } {
    return { kind: this.kind, count: this.remaining, after: this.skip };
  }
}
