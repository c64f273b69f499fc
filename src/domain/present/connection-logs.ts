import type { ConnectionLogRow } from '../../store/connection-logs.js';

const json = (v: string | null) => (v ? (JSON.parse(v) as Record<string, unknown>) : null);

/** Connection log row -> reference §4.11 `ConnectionLog`. */
export function presentConnectionLog(row: ConnectionLogRow) {
  return {
    _id: row.log_id,
    userId: row.user_id,
    profileId: row.profile_id,
    accountId: row.account_id,
    platform: row.platform,
    eventType: row.event_type,
    connectionMethod: row.connection_method,
    status: row.status,
    error: json(row.error),
    success: json(row.success),
    context: json(row.context) ?? {},
    durationMs: row.duration_ms,
    metadata: json(row.metadata) ?? {},
    createdAt: row.created_at,
  };
}
