import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api';
import { ErrorBox } from '../ui';

/*
 * Signing in: email and password for people (a session cookie the API sets; its CSRF token stays in
 * memory), an API key for programs and admins, and the invitation page an invite link leads to, where the
 * invitee sets a password and is signed in.
 */

/** What the sign-in answers carry: the session's CSRF token. */
export interface PasswordSession {
  csrfToken: string;
}

export function SignInPage({
  error,
  onPassword,
  onKey,
}: {
  error: unknown;
  onPassword: (s: PasswordSession) => void;
  onKey: (key: string) => Promise<void>;
}) {
  const [withKey, setWithKey] = useState(false);
  const [failed, setFailed] = useState<unknown>(null);
  useEffect(() => {
    document.title = 'Sign in · Herald';
  }, []);
  const shown = failed ?? error;
  return (
    <main class="signin">
      <h1>Herald</h1>
      {withKey ? <KeyForm onKey={onKey} /> : <PasswordForm onSignedIn={onPassword} onError={setFailed} />}
      <p>
        <button
          type="button"
          class="link"
          onClick={() => {
            setFailed(null);
            setWithKey(!withKey);
          }}
        >
          {withKey ? 'Use email and password' : 'Use an API key'}
        </button>
      </p>
      <ErrorBox
        error={
          withKey && shown instanceof ApiError && shown.status === 401
            ? new ApiError('That API key was not accepted: ' + shown.message, 401, shown.code, shown.requestId)
            : shown
        }
      />
    </main>
  );
}

function PasswordForm({
  onSignedIn,
  onError,
}: {
  onSignedIn: (s: PasswordSession) => void;
  onError: (e: unknown) => void;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        onError(null);
        try {
          onSignedIn(await api<PasswordSession>('POST', '/auth/login', { body: { email: email.trim(), password } }));
        } catch (err) {
          onError(err);
          setBusy(false);
        }
      }}
    >
      <label for="email">Email</label>
      <input
        id="email"
        type="email"
        autocomplete="username"
        value={email}
        onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
        required
      />
      <label for="password">Password</label>
      <input
        id="password"
        type="password"
        autocomplete="current-password"
        value={password}
        onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
        required
      />
      <button type="submit" disabled={busy || !email.trim() || !password}>
        {busy ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}

function KeyForm({ onKey }: { onKey: (key: string) => Promise<void> }) {
  const [key, setValue] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <>
      <p>
        Sign in with an API key. It stays in this tab only (session storage) and is sent as the Authorization header.
      </p>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          await onKey(key.trim());
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
    </>
  );
}

/** /app/invite/<token>: what the invitation gives, and a form that accepts it with a password. */
export function InvitePage({ token, onPassword }: { token: string; onPassword: (s: PasswordSession) => void }) {
  const [invite, setInvite] = useState<{ status: string; scope: string; expiresAt: string } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Invitation · Herald';
    api('GET', `/invite/${encodeURIComponent(token)}`).then(setInvite, setError);
  }, [token]);
  const fields = error instanceof ApiError ? error.fields : {};
  return (
    <main class="signin">
      <h1>Join your team on Herald</h1>
      {invite && invite.status !== 'pending' && (
        <p class="notice">This invitation has {invite.status === 'used' ? 'already been used' : 'expired'}.</p>
      )}
      {invite?.status === 'pending' && (
        <form
          aria-label="Accept the invitation"
          onSubmit={async (e) => {
            e.preventDefault();
            setBusy(true);
            setError(null);
            try {
              const body = { token, email: email.trim(), password, ...(name.trim() ? { name: name.trim() } : {}) };
              onPassword(await api<PasswordSession>('POST', '/invite/accept', { body }));
            } catch (err) {
              setError(err);
              setBusy(false);
            }
          }}
        >
          <p>
            You are invited to {invite.scope === 'all' ? 'all of the team’s profiles' : 'some of the team’s profiles'}.
            Choose the email and password you will sign in with.
          </p>
          <label for="invite-email">Email</label>
          <input
            id="invite-email"
            type="email"
            autocomplete="username"
            value={email}
            onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
            required
          />
          <label for="invite-name">Name (optional)</label>
          <input
            id="invite-name"
            autocomplete="name"
            value={name}
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
          <label for="invite-password">Password (at least 10 characters)</label>
          <input
            id="invite-password"
            type="password"
            autocomplete="new-password"
            minLength={10}
            value={password}
            aria-describedby={fields.password ? 'err-password' : undefined}
            onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
            required
          />
          <button type="submit" disabled={busy || !email.trim() || password.length < 10}>
            {busy ? 'Joining…' : 'Set password and sign in'}
          </button>
        </form>
      )}
      <ErrorBox error={error} />
    </main>
  );
}

/**
 * The signed-in user's own password (the Keys & team page): an owner signed in with a key sets one here;
 * a password session must give the current one.
 */
export function OwnPasswordForm({ needsCurrent }: { needsCurrent: boolean }) {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  return (
    <form
      aria-label="Your password"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        setDone(false);
        try {
          await api('PUT', '/auth/password', {
            body: { newPassword: next, ...(needsCurrent ? { currentPassword: current } : {}) },
          });
          setDone(true);
          setCurrent('');
          setNext('');
        } catch (err) {
          setError(err);
        }
        setBusy(false);
      }}
    >
      <h2>Your password</h2>
      <p>Sign in to this dashboard with your email and a password. Setting one signs your other browsers out.</p>
      {needsCurrent && (
        <>
          <label for="current-password">Current password</label>
          <input
            id="current-password"
            type="password"
            autocomplete="current-password"
            value={current}
            onInput={(e) => setCurrent((e.target as HTMLInputElement).value)}
          />
        </>
      )}
      <label for="new-password">New password (at least 10 characters)</label>
      <input
        id="new-password"
        type="password"
        autocomplete="new-password"
        minLength={10}
        value={next}
        onInput={(e) => setNext((e.target as HTMLInputElement).value)}
        required
      />
      <button type="submit" disabled={busy || next.length < 10}>
        {busy ? 'Saving…' : 'Set password'}
      </button>
      {done && (
        <p role="status" class="notice">
          Password set.
        </p>
      )}
      <ErrorBox error={error} />
    </form>
  );
}
