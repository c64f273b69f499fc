import { useState } from 'preact/hooks';
import { api } from '../api';
import { ProfilePicker } from '../components';
import { loadAccounts, loadProfiles, platformLabel, PLATFORM_LABELS, useChosenProfile } from '../data';
import { cannotWrite, Empty, ErrorBox, formatDate, Loading, Page, StatusBadge, useLoad, useSession } from '../ui';

/** Platforms connected without OAuth: Bluesky with an app password, Telegram with a chat the bot administers. */
const FORMS = new Set(['bluesky', 'telegram']);
const OAUTH = Object.keys(PLATFORM_LABELS).filter((p) => !FORMS.has(p));

export function AccountsPage() {
  const session = useSession();
  const readOnly = cannotWrite(session);
  const profiles = useLoad(loadProfiles, []);
  const [profileId, setProfileId] = useChosenProfile(profiles.data);
  const accounts = useLoad(() => (profileId ? loadAccounts(profileId) : Promise.resolve([])), [profileId]);
  const health = useLoad(() => (profileId ? api('GET', '/accounts/health', { query: { profileId } }) : Promise.resolve(null)), [profileId]);
  const [error, setError] = useState<unknown>(null);
  const [form, setForm] = useState<string | null>(null);
  const params = new URLSearchParams(location.search);
  const connected = params.get('connected');
  const failed = params.get('error');

  const reload = () => (accounts.reload(), health.reload());

  const connect = async (platform: string) => {
    setError(null);
    if (FORMS.has(platform)) return setForm(platform);
    try {
      // Back here when the platform (and Herald's selection page, for pages/boards/...) is done.
      const redirect = `${location.origin}/app/accounts`;
      const { authUrl } = await api('GET', `/connect/${platform}`, { query: { profileId, redirect_url: redirect } });
      location.assign(authUrl);
    } catch (e) {
      setError(e);
    }
  };

  if (profiles.loading && !profiles.data) return <Loading what="Loading profiles" />;
  const healthOf = (id: string) => health.data?.accounts?.find((h: any) => h.accountId === id);

  return (
    <Page title="Accounts" actions={profiles.data?.length ? <ProfilePicker profiles={profiles.data} value={profileId} onChange={setProfileId} id="acc-profile" /> : null}>
      {connected && (
        <p class="notice" role="status">
          {platformLabel(connected)} account {params.get('username') ?? ''} is connected.
        </p>
      )}
      {failed && <ErrorBox error={new Error(`The connection did not finish: ${failed}`)} />}
      <ErrorBox error={error ?? profiles.error ?? accounts.error} />
      <NewProfile disabled={readOnly} onCreated={(id) => (profiles.reload(), setProfileId(id))} first={!profiles.data?.length} />
      {profileId && (
        <>
          <h2>Connect an account</h2>
          <div class="connect-grid">
            {[...OAUTH, ...FORMS].map((p) => (
              <button onClick={() => connect(p)} disabled={Boolean(readOnly)} title={readOnly ?? `Connect ${platformLabel(p)}`}>
                {platformLabel(p)}
              </button>
            ))}
          </div>
          {form === 'bluesky' && <BlueskyForm profileId={profileId} onDone={() => (setForm(null), reload())} />}
          {form === 'telegram' && <TelegramForm profileId={profileId} onDone={() => (setForm(null), reload())} />}
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
                        <button class="small" onClick={() => connect(a.platform)} disabled={Boolean(readOnly)} title={readOnly ?? undefined}>
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

function NewProfile({ disabled, onCreated, first }: { disabled: string | null; onCreated: (id: string) => void; first: boolean }) {
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
      <input id="profile-name" value={name} required onInput={(e) => setName((e.target as HTMLInputElement).value)} disabled={Boolean(disabled)} />
      <button disabled={Boolean(disabled)} title={disabled ?? undefined}>
        Create profile
      </button>
      <ErrorBox error={error} />
    </form>
  );
}

function BlueskyForm({ profileId, onDone }: { profileId: string; onDone: () => void }) {
  const [handle, setHandle] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  return (
    <form
      class="card"
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          await api('POST', '/connect/bluesky', { body: { profileId, handle, appPassword: password } });
          onDone();
        } catch (err) {
          setError(err);
        }
      }}
    >
      <h3>Bluesky</h3>
      <label for="bsky-handle">Handle</label>
      <input id="bsky-handle" required placeholder="name.bsky.social" value={handle} onInput={(e) => setHandle((e.target as HTMLInputElement).value)} />
      <label for="bsky-password">App password (Settings → App passwords; not your account password)</label>
      <input id="bsky-password" type="password" required placeholder="xxxx-xxxx-xxxx-xxxx" value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />
      <button>Connect Bluesky</button>
      <ErrorBox error={error} />
    </form>
  );
}

function TelegramForm({ profileId, onDone }: { profileId: string; onDone: () => void }) {
  const [chatId, setChatId] = useState('');
  const [code, setCode] = useState<any>(null);
  const [error, setError] = useState<unknown>(null);
  return (
    <div class="card">
      <h3>Telegram</h3>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          try {
            await api('POST', '/connect/telegram', { body: { profileId, chatId } });
            onDone();
          } catch (err) {
            setError(err);
          }
        }}
      >
        <label for="tg-chat">Chat id or @channel (Herald's bot must be an administrator)</label>
        <input id="tg-chat" required value={chatId} onInput={(e) => setChatId((e.target as HTMLInputElement).value)} />
        <button>Connect the chat</button>
      </form>
      <p>Or post an access code in the chat:</p>
      <div class="row">
        <button
          type="button"
          onClick={async () => {
            try {
              setCode(await api('GET', '/connect/telegram', { query: { profileId } }));
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
                  const r = await api('PATCH', '/connect/telegram', { query: { code: code.code } });
                  if (r.status === 'connected') onDone();
                  else setError(new Error(r.status === 'expired' ? 'The code expired: get a new one' : 'Not seen yet: post the code in the chat, then check again'));
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
      {code?.instructions && <p class="muted">{Array.isArray(code.instructions) ? code.instructions.join(' ') : String(code.instructions)}</p>}
      <ErrorBox error={error} />
    </div>
  );
}
