import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, currentKey, setKey } from './api';
import { navigate, useRoute, BASE } from './router';
import { takeEarlySession } from './early';
import { ErrorBox, Loading, SessionContext, type Session } from './ui';
import { CalendarPage } from './pages/calendar';
import { ComposerPage } from './pages/composer';
import { DraftsPage } from './pages/drafts';
import { AccountsPage } from './pages/accounts';
import { QueuePage } from './pages/queue';
import { LogsPage } from './pages/logs';
import { WebhooksPage } from './pages/webhooks';
import { KeysPage } from './pages/keys';
import type { ComponentType } from 'preact';

/** A page loaded on first visit (its own chunk: the add-on pages and their chart library). */
function lazyPage(load: () => Promise<ComponentType>, what: string): ComponentType {
  let loaded: ComponentType | null = null;
  return function Lazy() {
    const [Page, setPage] = useState<ComponentType | null>(() => loaded);
    const [error, setError] = useState<unknown>(null);
    useEffect(() => {
      if (!Page) load().then((p) => ((loaded = p), setPage(() => p)), setError);
    }, []);
    if (error) return <ErrorBox error={error} />;
    return Page ? <Page /> : <Loading what={`Loading ${what}`} />;
  };
}
const AnalyticsPage = lazyPage(() => import('./pages/analytics').then((m) => m.AnalyticsPage), 'analytics');
const InboxPage = lazyPage(() => import('./pages/inbox').then((m) => m.InboxPage), 'the inbox');

/** Pages of an add-on are listed only when the key's user has it. */
const PAGES: { id: string; label: string; addon?: string }[] = [
  { id: 'calendar', label: 'Calendar' },
  { id: 'compose', label: 'Compose' },
  { id: 'drafts', label: 'Drafts' },
  { id: 'accounts', label: 'Accounts' },
  { id: 'queue', label: 'Queue' },
  { id: 'logs', label: 'Logs' },
  { id: 'webhooks', label: 'Webhooks' },
  { id: 'team', label: 'Keys & team' },
  { id: 'analytics', label: 'Analytics', addon: 'analytics' },
  { id: 'inbox', label: 'Inbox', addon: 'inbox' },
];

/** Why a page is not available to this session, or null. */
export function addonMissing(session: Session, page: string): string | null {
  const addon = PAGES.find((p) => p.id === page)?.addon;
  return addon && !session.addons.includes(addon) ? `The ${addon} add-on is not part of this account's plan` : null;
}

async function loadSession(key: string): Promise<Session> {
  const me = (await takeEarlySession(key)) ?? (await api('GET', '/api-keys/current', { key }));
  return { key, ...me.apiKey, plan: me.plan, addons: me.addons, userId: me.userId };
}

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(Boolean(currentKey()));
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    const key = currentKey();
    if (!key) return;
    loadSession(key)
      .then(setSession, (e) => {
        setKey(null);
        setError(e);
      })
      .finally(() => setRestoring(false));
  }, []);

  if (restoring) return <Loading what="Signing in" />;
  if (!session) {
    return (
      <SignIn
        error={error}
        onSignIn={async (key) => {
          setError(null);
          try {
            const s = await loadSession(key);
            setKey(key);
            setSession(s);
          } catch (e) {
            setError(e);
          }
        }}
      />
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <Shell
        session={session}
        onSignOut={() => {
          setKey(null);
          setSession(null);
        }}
      />
    </SessionContext.Provider>
  );
}

function SignIn({ onSignIn, error }: { onSignIn: (key: string) => Promise<void>; error: unknown }) {
  const [key, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <main class="signin">
      <h1>Herald</h1>
      <p>
        Sign in with an API key. It stays in this tab only (session storage) and is sent as the Authorization header.
      </p>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          await onSignIn(key.trim());
          setBusy(false);
        }}
      >
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          placeholder="sk_…"
          value={key}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
          required
        />
        <button type="submit" disabled={busy || !key.trim()}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <ErrorBox
        error={
          error instanceof ApiError && error.status === 401
            ? new ApiError('That API key was not accepted: ' + error.message, 401, error.code, error.requestId)
            : error
        }
      />
    </main>
  );
}

function Shell({ onSignOut, session }: { onSignOut: () => void; session: Session }) {
  const { page } = useRoute();
  const [menuOpen, setMenuOpen] = useState(false);
  return (
    <div class="shell">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Herald</span>
        <button class="menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <nav id="nav" aria-label="Main" class={menuOpen ? 'open' : ''}>
          <ul>
            {PAGES.filter((p) => !p.addon || session.addons.includes(p.addon)).map((p) => (
              <li>
                <a
                  href={BASE + p.id}
                  aria-current={page === p.id ? 'page' : undefined}
                  onClick={(e) => {
                    e.preventDefault();
                    setMenuOpen(false);
                    navigate(p.id);
                  }}
                >
                  {p.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <button class="link" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {addonMissing(session, page) ? (
          <section class="page">
            <h1>{PAGES.find((p) => p.id === page)?.label}</h1>
            <p class="notice">{addonMissing(session, page)}.</p>
          </section>
        ) : (
          <Current page={page} />
        )}
      </main>
    </div>
  );
}

function Current({ page }: { page: string }) {
  switch (page) {
    case 'compose':
      // A new form for each post edited.
      return <ComposerPage key={new URLSearchParams(location.search).get('edit') ?? ''} />;
    case 'drafts':
      return <DraftsPage />;
    case 'accounts':
      return <AccountsPage />;
    case 'queue':
      return <QueuePage />;
    case 'logs':
      return <LogsPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'team':
      return <KeysPage />;
    case 'analytics':
      return <AnalyticsPage />;
    case 'inbox':
      return <InboxPage />;
    default:
      return <CalendarPage />;
  }
}
