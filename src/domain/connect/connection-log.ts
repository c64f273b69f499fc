import type { AppContext } from '../../context.js';
import { newId } from '../../lib/ids.js';
import type { Executor } from '../../store/db.js';
import { insertConnectionLog } from '../../store/connection-logs.js';

export interface ConnectionLogInput {
  tenantId: string;
  userId: string | null;
  profileId: string | null;
  accountId?: string | null;
  platform: string;
  eventType: 'connect_success' | 'connect_failed' | 'disconnect' | 'reconnect_success' | 'reconnect_failed';
  method: 'oauth' | 'credentials' | 'invitation';
  error?: { code: string; message: string; rawResponse?: string | null } | null;
  success?: {
    displayName?: string | null;
    username?: string | null;
    profilePicture?: string | null;
    permissions?: string[];
    tokenExpiresAt?: string | null;
    accountType?: string | null;
  } | null;
  context?: Record<string, unknown>;
  /** performance.now() when the flow step started (wall time, not the injected clock). */
  startedMs?: number;
  metadata?: Record<string, unknown>;
}

/** Writes one connection log entry (reference §4.11). */
export async function writeConnectionLog(ctx: AppContext, db: Executor, input: ConnectionLogInput): Promise<void> {
  const now = ctx.clock.now();
  await insertConnectionLog(db, {
    log_id: newId(now),
    tenant_id: input.tenantId,
    user_id: input.userId,
    profile_id: input.profileId,
    account_id: input.accountId ?? null,
    platform: input.platform,
    event_type: input.eventType,
    connection_method: input.method,
    status: input.eventType.endsWith('_failed') ? 'failed' : 'success',
    error: input.error ? JSON.stringify(input.error) : null,
    success: input.success ? JSON.stringify(input.success) : null,
    context: JSON.stringify(input.context ?? {}),
    duration_ms: input.startedMs !== undefined ? Math.max(0, Math.round(performance.now() - input.startedMs)) : 0,
    metadata: JSON.stringify(input.metadata ?? {}),
    created_at: now.toISOString(),
  });
}
