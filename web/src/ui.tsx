import type { ComponentChildren } from 'preact';
import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api';

/** What the signed-in key or password session may do (GET /v1/api-keys/current). */
export interface Session {
  /** The API key ('' when signed in by password). */
  key: string;
  /** How this tab signed in: an API key, or email and password (a session cookie). */
  via: 'key' | 'password';
  /** The key's id (never the key itself). */
  id: string;
  permission: 'read-write' | 'read';
  scope: 'full' | 'profiles';
  profileIds: string[] | null;
  plan: string;
  addons: string[];
  userId: string;
}

export const SessionContext = createContext<Session | null>(null);
export const useSession = () => useContext(SessionContext)!;

/** Reasons a control is disabled for this key, or null when it is allowed. */
export function cannotWrite(s: Session): string | null {
  return s.permission === 'read' ? 'This API key is read-only' : null;
}
export function cannotManageAccount(s: Session): string | null {
  return (
    cannotWrite(s) ?? (s.scope !== 'full' ? 'This API key is limited to some profiles: use a full-scope key' : null)
  );
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error instanceof ApiError ? error : null;
  return (
    <div class="error" role="alert">
      <strong>{e ? e.message : String((error as Error)?.message ?? error)}</strong>
      {e && (
        <div class="meta">
          {e.code}
          {e.status ? ` · HTTP ${e.status}` : ''}
          {e.requestId ? ` · request id ${e.requestId}` : ''}
        </div>
      )}
    </div>
  );
}

export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <div class="empty">{children}</div>;
}

/** Field errors under a control. */
export function FieldErrors({ id, messages }: { id: string; messages?: string[] }) {
  if (!messages?.length) return null;
  return (
    <ul class="field-errors" id={id}>
      {messages.map((m) => (
        <li>{m}</li>
      ))}
    </ul>
  );
}

/** Loads once per dependency change; `reload` runs it again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ data: s.data, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

export function Page({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ComponentChildren;
  children: ComponentChildren;
}) {
  useEffect(() => {
    document.title = `${title} · Herald`;
  }, [title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-head">
        <h1 id="page-title">{title}</h1>
        {actions && <div class="actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

export function formatDate(iso: string | null | undefined, zone?: string): string {
  if (!iso) return '—';
  try {
    return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: zone }).format(
      new Date(iso),
    );
  } catch {
    return iso;
  }
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge st-${status}`}>{status}</span>;
}
