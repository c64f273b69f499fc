import type { AppContext } from '../../context.js';
import { sha256Hex, randomToken } from '../../lib/crypto.js';
import type { Executor } from '../../store/db.js';
import {
  consumeConnectToken,
  findLiveConnectToken,
  insertConnectToken,
  type ConnectTokenKind,
  type ConnectTokenRow,
} from '../../store/connect-tokens.js';

/** Lifetimes of the connect records (spec: state and pending data 10 minutes; X-Connect-Token 15). */
export const TTL_MS = {
  oauth_state: 10 * 60_000,
  pending_data: 10 * 60_000,
  temp_token: 15 * 60_000,
  connect_token: 15 * 60_000,
  access_code: 15 * 60_000,
} as const satisfies Record<ConnectTokenKind, number>;

const PREFIX: Record<ConnectTokenKind, string> = {
  oauth_state: 'st_',
  pending_data: 'pd_',
  temp_token: 'tmp_',
  connect_token: 'ct_',
  access_code: '',
};

export interface TokenOwner {
  tenantId: string;
  userId: string | null;
  profileId: string;
  platform: string;
}

export interface LiveToken<T> {
  row: ConnectTokenRow;
  data: T;
}

/** Issues a one-time record; returns the token to hand out (only its hash is stored). */
export async function issueConnectToken(
  ctx: AppContext,
  db: Executor,
  kind: ConnectTokenKind,
  owner: TokenOwner,
  data: unknown,
  opts: { token?: string } = {},
): Promise<{ token: string; expiresAt: Date }> {
  const now = ctx.clock.now();
  const token = opts.token ?? randomToken(PREFIX[kind], 24);
  const expiresAt = new Date(now.getTime() + TTL_MS[kind]);
  await insertConnectToken(db, {
    token_hash: hashConnectToken(token),
    kind,
    tenant_id: owner.tenantId,
    user_id: owner.userId,
    profile_id: owner.profileId,
    platform: owner.platform,
    data: ctx.secrets.seal(JSON.stringify(data ?? {})),
    expires_at: expiresAt.toISOString(),
    used_at: null,
    created_at: now.toISOString(),
  });
  return { token, expiresAt };
}

export function hashConnectToken(token: string): string {
  return sha256Hex(token);
}

export function openConnectData<T>(ctx: AppContext, row: ConnectTokenRow): T {
  return JSON.parse(ctx.secrets.open(row.data)) as T;
}

/** A live record, not consumed (for tokens usable several times within their lifetime). */
export async function peekConnectToken<T>(
  ctx: AppContext,
  db: Executor,
  kind: ConnectTokenKind,
  token: string,
): Promise<LiveToken<T> | null> {
  if (!token) return null;
  const row = await findLiveConnectToken(db, kind, hashConnectToken(token), ctx.clock.now());
  return row ? { row, data: openConnectData<T>(ctx, row) } : null;
}

/** Reads and consumes a one-time record; null when unknown, expired or already used. */
export async function takeConnectToken<T>(
  ctx: AppContext,
  db: Executor,
  kind: ConnectTokenKind,
  token: string,
): Promise<LiveToken<T> | null> {
  const live = await peekConnectToken<T>(ctx, db, kind, token);
  if (!live) return null;
  const won = await consumeConnectToken(db, live.row.token_hash, ctx.clock.now());
  return won ? live : null;
}
