import { newId } from '../../lib/ids.js';
import type { CallRecord } from '../../platforms/io.js';
import type { PlatformError, PublishRequest, PublishResult } from '../../platforms/types.js';
import type { PublishLogRow } from '../../store/publish-logs.js';
import type { PostRow, TargetRow } from '../../store/publishing.js';
import { platformErrorCode } from './failure.js';

export type LogAction =
  | 'publish'
  | 'retry'
  | 'media_upload'
  | 'rate_limit_pause'
  | 'token_refresh'
  | 'cancelled'
  | 'edit';
export type LogStatus = 'success' | 'failed' | 'pending' | 'skipped';

const RAW = 5000;
// Calls an adapter makes before the one that creates the post: uploads, containers, blobs.
const MEDIA_ENDPOINT = /upload|media|blob|container|asset/i;

/**
 * Collects what happens while one target is published: every HTTP call the adapter makes (fed by
 * PlatformIO's `onCall`) becomes a log row when the step it belongs to ends, so the row knows its action,
 * attempt number and outcome. Rows are written in the transaction that records the outcome.
 */
export class CallLog {
  private calls: CallRecord[] = [];
  private rows: PublishLogRow[] = [];

  constructor(
    private readonly post: PostRow,
    private readonly target: TargetRow,
    private readonly accountUsername: string | null,
    private readonly request: PublishRequest | null,
    private readonly now: () => Date,
  ) {}

  readonly onCall = (call: CallRecord): void => {
    this.calls.push(call);
  };

  /**
   * Ends a step (`publish`, `retry`, `token_refresh`): its calls become rows, the last one carrying the
   * step's outcome. A step that failed before any HTTP call still gets one row with the error.
   */
  step(
    action: LogAction,
    attempt: number,
    outcome: { result?: PublishResult | null; error?: PlatformError | null; metadata?: Record<string, unknown> } = {},
  ): void {
    const calls = this.calls;
    this.calls = [];
    if (calls.length === 0 && !outcome.error && outcome.result === undefined) return;
    if (calls.length === 0) {
      this.note(action, outcome.error ? 'failed' : 'success', attempt, {
        statusCode: outcome.error?.status ?? null,
        endpoint: outcome.error?.endpoint ?? null,
        response: this.response(outcome.result ?? null, outcome.error ?? null, outcome.error?.raw ?? null),
        metadata: outcome.metadata,
      });
      return;
    }
    // A published post whose first comment failed: that call, the step's last, is a failed row.
    const comment = outcome.result?.firstComment;
    const commentError = comment?.status === 'failed' ? `First comment failed: ${comment.errorMessage}` : null;
    calls.forEach((call, i) => {
      const last = i === calls.length - 1;
      const failedCall = call.error !== null || call.statusCode === null || call.statusCode >= 400;
      const rowAction =
        !last && action !== 'token_refresh' && MEDIA_ENDPOINT.test(call.endpoint) ? 'media_upload' : action;
      const status: LogStatus = last
        ? outcome.error || (commentError && failedCall)
          ? 'failed'
          : 'success'
        : failedCall
          ? 'failed'
          : 'success';
      this.rows.push(
        this.row(rowAction, status, attempt, {
          statusCode: call.statusCode,
          endpoint: `${call.method} ${call.endpoint}`,
          durationMs: call.durationMs,
          rawRequest: call.requestPreview,
          response: last
            ? this.response(
                outcome.result ?? null,
                outcome.error ?? null,
                call.responsePreview ?? call.error,
                commentError,
              )
            : this.response(null, null, call.responsePreview ?? call.error),
          metadata: outcome.metadata,
        }),
      );
    });
  }

  /** A row without an HTTP call: a rate-limit pause, a skipped target. */
  note(
    action: LogAction,
    status: LogStatus,
    attempt: number,
    extra: {
      statusCode?: number | null;
      endpoint?: string | null;
      response?: Record<string, unknown>;
      metadata?: Record<string, unknown>;
    } = {},
  ): void {
    this.rows.push(
      this.row(action, status, attempt, {
        statusCode: extra.statusCode ?? null,
        endpoint: extra.endpoint ?? null,
        durationMs: 0,
        rawRequest: null,
        response: extra.response ?? this.response(null, null, null),
        metadata: extra.metadata,
      }),
    );
  }

  /** The rows collected so far (and forgets them: each is written once). */
  drain(): PublishLogRow[] {
    const rows = this.rows;
    this.rows = [];
    return rows;
  }

  private response(
    result: PublishResult | null,
    error: PlatformError | null,
    raw: string | null,
    note: string | null = null,
  ) {
    return {
      platformPostId: result?.platformPostId ?? null,
      platformPostUrl: result?.platformPostUrl ?? null,
      errorMessage: error?.message ?? note,
      errorCode: error ? platformErrorCode(error) : null,
      rawBody: raw ? raw.slice(0, RAW) : null,
    };
  }

  private row(
    action: LogAction,
    status: LogStatus,
    attempt: number,
    p: {
      statusCode: number | null;
      endpoint: string | null;
      durationMs: number;
      rawRequest: string | null;
      response: Record<string, unknown>;
      metadata?: Record<string, unknown>;
    },
  ): PublishLogRow {
    const now = this.now();
    const content = this.request?.content ?? this.target.custom_content ?? this.post.content;
    const media = this.request?.media ?? [];
    return {
      log_id: newId(now),
      tenant_id: this.post.tenant_id,
      post_id: this.post.post_id,
      target_id: this.target.target_id,
      profile_id: this.target.profile_id,
      account_id: this.target.account_id,
      account_username: this.accountUsername,
      platform: this.target.platform,
      action,
      status,
      status_code: p.statusCode,
      endpoint: p.endpoint,
      content_preview: content.slice(0, 200),
      request: JSON.stringify({
        contentPreview: content.slice(0, 200),
        mediaCount: media.length,
        mediaTypes: media.map((m) => m.type),
        mediaUrls: media.map((m) => m.url),
        scheduledFor: this.target.scheduled_for ?? this.post.scheduled_for,
        rawBody: p.rawRequest ? p.rawRequest.slice(0, RAW) : null,
      }),
      response: JSON.stringify(p.response),
      duration_ms: p.durationMs,
      attempt_number: Math.max(1, attempt),
      metadata: JSON.stringify(p.metadata ?? {}),
      created_at: now.toISOString(),
    };
  }
}
