import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, currentKey, mayHavePasswordSession, setCsrfToken, setKey } from './api';
import { navigate, useRoute, BASE } from './router';
import { takeEarlySession } from './early';
import { loadPlatforms } from './data';
import { ErrorBox, Loading, SessionContext, type Session } from './ui';
import { CalendarPage } from './pages/calendar';
import { ComposerPage } from './pages/composer';
import { DraftsPage } from './pages/drafts';
import { AccountsPage } from './pages/accounts';
import { QueuePage } from './pages/queue';
import { LogsPage } from './pages/logs';
import { WebhooksPage } from './pages/webhooks';
import { KeysPage } from './pages/keys';
import { MediaPage } from './pages/media';
import { InvitePage, SignInPage } from './pages/sign-in';
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
  { id: 'media', label: 'Media' },
  { id: 'logs', label: 'Logs' },
  { id: 'webhooks', label: 'Webhooks' },
  { id: 'team', label: 'Keys & team' },
  { id: 'analytics', label: 'Analytics', addon: 'analytics' },
  { id: 'inbox', label: 'Inbox', addon: 'inbox' },
];

/** Why a page is not available to this session, or null. */
function addonMissing(session: Session, page: string): string | null {
  const addon = PAGES.find((p) => p.id === page)?.addon;
  return addon && !session.addons.includes(addon) ? `The ${addon} add-on is not part of this account's plan` : null;
}

/** The sign-in check with `key`, and the platform list the pages draw with (read before any page is drawn). */
async function loadSession(key: string): Promise<Session> {
  const [me] = await Promise.all([
    takeEarlySession(key).then((early) => early ?? api('GET', '/api-keys/current', { key })),
    loadPlatforms(key),
  ]);
  return { key, via: 'key', ...me.apiKey, plan: me.plan, addons: me.addons, userId: me.userId };
}

/** What a password session may do: the same answer, asked with the session cookie and its CSRF token. */
async function loadPasswordSession(csrfToken: string): Promise<Session> {
  setCsrfToken(csrfToken);
  const [me] = await Promise.all([api('GET', '/api-keys/current'), loadPlatforms()]);
  return { key: '', via: 'password', ...me.apiKey, plan: me.plan, addons: me.addons, userId: me.userId };
}

/** A password session this browser already has (its cookie), or null. */
async function restorePasswordSession(): Promise<Session | null> {
  if (!mayHavePasswordSession()) return null;
  try {
    const s = await api<{ csrfToken: string }>('GET', '/auth/session');
    return await loadPasswordSession(s.csrfToken);
  } catch (e) {
    setCsrfToken(null);
    if (e instanceof ApiError && e.status === 401) return null;
    throw e;
  }
}

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const { page } = useRoute();

  useEffect(() => {
    const key = currentKey();
    (key ? loadSession(key) : restorePasswordSession())
      .then(setSession, (e) => {
        setKey(null);
        setError(e);
      })
      .finally(() => setRestoring(false));
  }, []);

  const onPassword = async ({ csrfToken }: { csrfToken: string }) => {
    setError(null);
    try {
      setSession(await loadPasswordSession(csrfToken));
      if (page === 'invite') navigate('calendar');
    } catch (e) {
      setCsrfToken(null);
      setError(e);
    }
  };

  if (restoring) return <Loading what="Signing in" />;
  if (!session) {
    if (page === 'invite') return <InvitePage token={location.pathname.split('/')[3] ?? ''} onPassword={onPassword} />;
    return (
      <SignInPage
        error={error}
        onPassword={onPassword}
        onKey={async (key) => {
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
        onSignOut={async () => {
          if (session.via === 'password') {
            // Ends the session on the server; signed out here whatever the answer.
            await api('POST', '/auth/logout').catch(() => undefined);
            setCsrfToken(null);
          }
          setKey(null);
          setSession(null);
        }}
      />
    </SessionContext.Provider>
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
    case 'media':
      return <MediaPage />;
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
