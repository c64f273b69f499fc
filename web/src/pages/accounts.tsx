import { useEffect, useState } from 'preact/hooks';
import { api, toApiError } from '../api';
import { selectionListing } from '../openapi';
import { ProfilePicker } from '../components';
import {
  allPlatforms,
  loadAccounts,
  loadProfiles,
  platformInfo,
  platformLabel,
  useChosenProfile,
  type PlatformInfo,
} from '../data';
import { cannotWrite, Empty, ErrorBox, formatDate, Loading, Page, StatusBadge, useLoad, useSession } from '../ui';

/**
 * The platforms to connect, OAuth ones first; a platform connected without OAuth (credentials, or a chat
 * its bot administers: GET /v1/platforms says which) opens its form here instead.
 */
const connectable = () => [
  ...allPlatforms().filter((p) => p.connect === 'oauth2'),
  ...allPlatforms().filter((p) => p.connect !== 'oauth2'),
];

export function AccountsPage() {
  const session = useSession();
  const readOnly = cannotWrite(session);
  const profiles = useLoad(loadProfiles, []);
  const [profileId, setProfileId] = useChosenProfile(profiles.data);
  const accounts = useLoad(() => (profileId ? loadAccounts(profileId) : Promise.resolve([])), [profileId]);
  const health = useLoad(
    () => (profileId ? api('GET', '/accounts/health', { query: { profileId } }) : Promise.resolve(null)),
    [profileId],
  );
  const [error, setError] = useState<unknown>(null);
  const [form, setForm] = useState<string | null>(null);
  // What the connection's return left in the address, read once and then taken out of it (its tokens are one-use).
  const [params] = useState(() => {
    const p = new URLSearchParams(location.search);
    if ([...p.keys()].length) history.replaceState(history.state, '', location.pathname);
    return p;
  });
  const [done, setDone] = useState<{ platform: string; name: string } | null>(null);
  const connected = done?.platform ?? params.get('connected');
  const failed = params.get('error');

  const reload = () => (accounts.reload(), health.reload());

  const connect = async (platform: string) => {
    setError(null);
    const kind = platformInfo(platform)?.connect;
    if (kind === 'credentials' || kind === 'bot') return setForm(platform);
    try {
      // Headless: the platform sends the browser back here with a code to exchange, or with the pending
      // choice of a page, organization, board... which this page shows (PendingConnection).
      const redirect = `${location.origin}/app/accounts`;
      const { authUrl } = await api('GET', `/connect/${platform}`, {
        query: { profileId, redirect_url: redirect, headless: true },
      });
      location.assign(authUrl);
    } catch (e) {
      setError(e);
    }
  };

  if (profiles.loading && !profiles.data) return <Loading what="Loading profiles" />;
  const healthOf = (id: string) => health.data?.accounts?.find((h: any) => h.accountId === id);

  return (
    <Page
      title="Accounts"
      actions={
        profiles.data?.length ? (
          <ProfilePicker profiles={profiles.data} value={profileId} onChange={setProfileId} id="acc-profile" />
        ) : null
      }
    >
      {connected && (
        <p class="notice" role="status">
          {platformLabel(connected)} account {done?.name ?? params.get('username') ?? ''} is connected.
        </p>
      )}
      <PendingConnection
        params={params}
        onConnected={(platform, name, profile) => (
          setDone({ platform, name }), profile && setProfileId(profile), reload()
        )}
      />
      {failed && <ErrorBox error={new Error(`The connection did not finish: ${failed}`)} />}
      <ErrorBox error={error ?? profiles.error ?? accounts.error} />
      <NewProfile
        disabled={readOnly}
        onCreated={(id) => (profiles.reload(), setProfileId(id))}
        first={!profiles.data?.length}
      />
      {profileId && (
        <>
          <h2>Connect an account</h2>
          <div class="connect-grid">
            {connectable().map((p) => (
              <button
                onClick={() => connect(p.id)}
                disabled={Boolean(readOnly)}
                title={readOnly ?? `Connect ${p.label}`}
              >
                {p.label}
              </button>
            ))}
          </div>
          <ConnectForm platform={form} profileId={profileId} onDone={() => (setForm(null), reload())} />
          <h2>Connected accounts</h2>
          {accounts.loading && !accounts.data ? (
            <Loading what="Loading accounts" />
          ) : !accounts.data?.length ? (
            <Empty>No account connected to this profile yet.</Empty>
          ) : (
            <div class="table-wrap" tabIndex={0} role="region" aria-label="Table, scrolls sideways on narrow screens">
              <table class="accounts">
                <thead>
                  <tr>
                    <th scope="col">Platform</th>
                    <th scope="col">Account</th>
                    <th scope="col">Health</th>
                    <th scope="col">Token expires</th>
                    <th scope="col">
                      <span class="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {accounts.data.map((a) => {
                    const h = healthOf(a._id);
                    return (
                      <tr>
                        <td>{platformLabel(a.platform)}</td>
                        <td>
                          {a.displayName || a.username} <span class="muted">{a.username}</span>
                        </td>
                        <td>
                          {h ? <StatusBadge status={h.needsReconnect ? 'failed' : h.status} /> : '…'}
                          {h?.issues?.length ? <span class="muted"> {h.issues.join('; ')}</span> : null}
                        </td>
                        <td>{formatDate(h?.tokenExpiresAt)}</td>
                        <td class="row">
                          <button
                            class="small"
                            onClick={() => connect(a.platform)}
                            disabled={Boolean(readOnly)}
                            title={readOnly ?? undefined}
                          >
                            Reconnect
                          </button>
                          <button
                            class="small danger"
                            disabled={Boolean(readOnly)}
                            title={readOnly ?? undefined}
                            onClick={async () => {
                              if (!confirm(`Disconnect ${a.username}?`)) return;
                              try {
                                await api('DELETE', `/accounts/${a._id}`);
                                reload();
                              } catch (e) {
                                setError(e);
                              }
                            }}
                          >
                            Disconnect
                          </button>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </Page>
  );
}

function NewProfile({
  disabled,
  onCreated,
  first,
}: {
  disabled: string | null;
  onCreated: (id: string) => void;
  first: boolean;
}) {
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);
  return (
    <form
      class="row"
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          const r = await api('POST', '/profiles', { body: { name } });
          setName('');
          setError(null);
          onCreated(r.profile._id);
        } catch (err) {
          setError(err);
        }
      }}
    >
      {first && <p>Create a profile (a brand or client) to connect accounts to.</p>}
      <label for="profile-name">New profile</label>
      <input
        id="profile-name"
        value={name}
        required
        onInput={(e) => setName((e.target as HTMLInputElement).value)}
        disabled={Boolean(disabled)}
      />
      <button disabled={Boolean(disabled)} title={disabled ?? undefined}>
        Create profile
      </button>
      <ErrorBox error={error} />
    </form>
  );
}

/** The form of the platform chosen to connect without OAuth, if any (a new form for each platform). */
function ConnectForm({ platform, ...props }: { platform: string | null; profileId: string; onDone: () => void }) {
  const info = platform ? platformInfo(platform) : undefined;
  if (info?.connect === 'credentials') return <CredentialsForm key={info.id} platform={info} {...props} />;
  if (info?.connect === 'bot') return <BotChatForm key={info.id} platform={info} {...props} />;
  return null;
}

/** A platform connected with a handle and an app password (POST /v1/connect/{platform}). */
function CredentialsForm({
  platform,
  profileId,
  onDone,
}: {
  platform: PlatformInfo;
  profileId: string;
  onDone: () => void;
}) {
  const [handle, setHandle] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const texts = platform.connectForm ?? {};
  return (
    <form
      class="card"
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          await api('POST', `/connect/${platform.id}`, { body: { profileId, handle, appPassword: password } });
          onDone();
        } catch (err) {
          setError(err);
        }
      }}
    >
      <h3>{platform.name}</h3>
      <label for="connect-handle">Handle</label>
      <input
        id="connect-handle"
        required
        placeholder={texts.handlePlaceholder}
        value={handle}
        onInput={(e) => setHandle((e.target as HTMLInputElement).value)}
      />
      <label for="connect-secret">{texts.secretLabel ?? 'App password'}</label>
      <input
        id="connect-secret"
        type="password"
        required
        placeholder={texts.secretPlaceholder}
        value={password}
        onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
      />
      <button>Connect {platform.name}</button>
      <ErrorBox error={error} />
    </form>
  );
}

/**
 * A platform whose accounts are chats its bot administers: connected by chat id (POST
 * /v1/connect/{platform}), or by an access code posted in the chat (GET, then PATCH to check).
 */
function BotChatForm({
  platform,
  profileId,
  onDone,
}: {
  platform: PlatformInfo;
  profileId: string;
  onDone: () => void;
}) {
  const [chatId, setChatId] = useState('');
  const [code, setCode] = useState<any>(null);
  const [error, setError] = useState<unknown>(null);
  const path = `/connect/${platform.id}`;
  return (
    <div class="card">
      <h3>{platform.name}</h3>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          try {
            await api('POST', path, { body: { profileId, chatId } });
            onDone();
          } catch (err) {
            setError(err);
          }
        }}
      >
        <label for="connect-chat">
          {platform.connectForm?.chatLabel ?? "Chat id (Herald's bot must be an administrator)"}
        </label>
        <input
          id="connect-chat"
          required
          value={chatId}
          onInput={(e) => setChatId((e.target as HTMLInputElement).value)}
        />
        <button>Connect the chat</button>
      </form>
      <p>Or post an access code in the chat:</p>
      <div class="row">
        <button
          type="button"
          onClick={async () => {
            try {
              setCode(await api('GET', path, { query: { profileId } }));
            } catch (err) {
              setError(err);
            }
          }}
        >
          Get a code
        </button>
        {code && (
          <>
            <code>{code.code}</code>
            <button
              type="button"
              onClick={async () => {
                try {
                  const r = await api('PATCH', path, { query: { code: code.code } });
                  if (r.status === 'connected') onDone();
                  else
                    setError(
                      new Error(
                        r.status === 'expired'
                          ? 'The code expired: get a new one'
                          : 'Not seen yet: post the code in the chat, then check again',
                      ),
                    );
                } catch (err) {
                  setError(err);
                }
              }}
            >
              Check
            </button>
          </>
        )}
      </div>
      {code?.instructions && (
        <p class="muted">
          {Array.isArray(code.instructions) ? code.instructions.join(' ') : String(code.instructions)}
        </p>
      )}
      <ErrorBox error={error} />
    </div>
  );
}

interface Pending {
  platform: string;
  profileId: string;
  tempToken: string;
  choices: { id: string; name: string; details: string }[];
}

/** The strings of a destination worth showing beside its name (username, category...). */
function detailsOf(item: Record<string, unknown>): string {
  return Object.entries(item)
    .filter(
      ([k, v]) =>
        k !== 'id' &&
        k !== 'name' &&
        !/token|picture|url/i.test(k) &&
        (typeof v === 'string' || typeof v === 'number') &&
        v !== '',
    )
    .map(([, v]) => String(v))
    .join(' · ');
}

/**
 * The end of a headless connection: a code to exchange (POST /v1/connect/{platform}), or a choice of
 * destination (a `step` with a temp token, or a `pendingDataToken`), listed here and finished with
 * POST /v1/connect/{platform}/choose, which checks the choice against the platform's own list.
 */
function PendingConnection({
  params,
  onConnected,
}: {
  params: URLSearchParams;
  onConnected: (platform: string, name: string, profileId?: string) => void;
}) {
  const [pending, setPending] = useState<Pending | null>(null);
  const [busy, setBusy] = useState(false);
  const [chosen, setChosen] = useState('');
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    const platform = params.get('platform') ?? '';
    const profileId = params.get('profileId') ?? '';
    const run = async () => {
      const token = params.get('pendingDataToken');
      if (token) {
        const data = await api('GET', '/connect/pending-data', { query: { token } });
        const list = Object.values<unknown>(data).find(Array.isArray) as Record<string, unknown>[] | undefined;
        return setPending({
          platform: data.platform,
          profileId: data.profileId,
          tempToken: data.tempToken,
          choices: toChoices(list ?? []),
        });
      }
      const tempToken = params.get('tempToken');
      if (params.get('step') && tempToken && platform) {
        const listing = await selectionListing(platform);
        if (!listing)
          throw new Error(`This server does not describe how to list the choices of ${platformLabel(platform)}`);
        const data = await api('GET', listing.path, { query: { profileId, tempToken } });
        return setPending({ platform, profileId, tempToken, choices: toChoices(data[listing.key] ?? []) });
      }
      const code = params.get('code');
      const state = params.get('state');
      if (code && state && platform) {
        setBusy(true);
        const r = await api('POST', `/connect/${platform}`, { body: { code, state, profileId } });
        onConnected(platform, r.account?.displayName || r.account?.username || '', profileId);
      }
    };
    run()
      .catch(setError)
      .finally(() => setBusy(false));
  }, []);

  if (!pending) return busy ? <Loading what="Finishing the connection" /> : <ErrorBox error={error} />;
  const label = platformLabel(pending.platform);
  return (
    <form
      class="card selection"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          const res = await fetch(`/v1/connect/${encodeURIComponent(pending.platform)}/choose`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ tempToken: pending.tempToken, destinationId: chosen }).toString(),
            credentials: 'omit',
            // Success is a redirect to the connection's redirect_url (this page): not followed.
            redirect: 'manual',
          });
          if (res.type !== 'opaqueredirect' && !res.ok) {
            const text = await res.text();
            let body: unknown = text;
            try {
              body = JSON.parse(text);
            } catch {
              /* not JSON */
            }
            throw toApiError(res.status, body, res.headers.get('x-request-id'));
          }
          const name = pending.choices.find((c) => c.id === chosen)?.name ?? '';
          setPending(null);
          onConnected(pending.platform, name, pending.profileId);
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      <fieldset>
        <legend>Choose where {label} posts go</legend>
        {pending.choices.length === 0 ? (
          <Empty>This {label} login has nothing to post to.</Empty>
        ) : (
          pending.choices.map((c) => (
            <label class="choice">
              <input
                type="radio"
                name="destination"
                value={c.id}
                checked={chosen === c.id}
                onChange={() => setChosen(c.id)}
                required
              />
              <span>
                {c.name} {c.details && <span class="muted">{c.details}</span>}
              </span>
            </label>
          ))
        )}
      </fieldset>
      <div class="row">
        <button disabled={busy || !chosen}>Connect</button>
        <button type="button" class="link" onClick={() => setPending(null)}>
          Cancel
        </button>
      </div>
      <ErrorBox error={error} />
    </form>
  );
}

function toChoices(list: Record<string, unknown>[]): Pending['choices'] {
  return list
    .filter((x) => x && (typeof x.id === 'string' || typeof x.id === 'number'))
    .map((x) => ({ id: String(x.id), name: String(x.name ?? x.username ?? x.id), details: detailsOf(x) }));
}
