import { useState } from 'preact/hooks';
import { api } from '../api';
import { loadProfiles } from '../data';
import { OwnPasswordForm } from './sign-in';
import { cannotManageAccount, Empty, ErrorBox, formatDate, Loading, Page, useLoad, useSession } from '../ui';

/** API keys (create, shown once; revoke) and team invitations: both span the whole account. */
export function KeysPage() {
  const session = useSession();
  const blocked = cannotManageAccount(session);
  const listBlocked = session.scope !== 'full' ? 'Listing API keys needs a full-scope key' : null;
  const keys = useLoad(() => (listBlocked ? Promise.resolve({ apiKeys: [] }) : api('GET', '/api-keys')), []);
  const profiles = useLoad(loadProfiles, []);
  const users = useLoad(() => api('GET', '/users'), []);
  const [error, setError] = useState<unknown>(null);

  return (
    <Page title="Keys & team">
      <p class="muted">
        {session.via === 'password' ? 'Signed in by password' : 'Signed in with a'} {session.permission} key, scope{' '}
        {session.scope}
        {session.profileIds
          ? ` (${session.profileIds.length} profile${session.profileIds.length === 1 ? '' : 's'})`
          : ''}
        .
      </p>
      {blocked && <p class="notice">{blocked}: creating and revoking keys and inviting people is disabled.</p>}
      <ErrorBox error={error ?? keys.error} />
      <NewKey disabled={blocked} profiles={profiles.data ?? []} onCreated={keys.reload} />
      <h2>API keys</h2>
      {listBlocked ? (
        <Empty>{listBlocked}.</Empty>
      ) : keys.loading && !keys.data ? (
        <Loading what="Loading keys" />
      ) : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Table, scrolls sideways on narrow screens">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Permission</th>
                <th scope="col">Scope</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.data?.apiKeys.map((k: any) => (
                <tr>
                  <td>{k.name}</td>
                  <td class="mono">{k.keyPreview}</td>
                  <td>{k.permission}</td>
                  <td>
                    {k.scope === 'full' ? 'all profiles' : k.profileIds.map((p: any) => p.name ?? p._id).join(', ')}
                  </td>
                  <td>{k.expiresAt ? formatDate(k.expiresAt) : 'never'}</td>
                  <td>
                    <button
                      class="small danger"
                      disabled={Boolean(blocked) || k.id === session.id}
                      title={blocked ?? undefined}
                      onClick={async () => {
                        if (!confirm(`Revoke the key ${k.name}? It stops working at once.`)) return;
                        try {
                          await api('DELETE', `/api-keys/${k.id}`);
                          keys.reload();
                        } catch (e) {
                          setError(e);
                        }
                      }}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Team</h2>
      <ErrorBox error={users.error} />
      {users.data && (
        <ul>
          {users.data.users.map((u: any) => (
            <li>
              {u.email ?? u.name ?? u._id} {u.role ? <span class="muted">({u.role})</span> : null}
            </li>
          ))}
        </ul>
      )}
      <Invite disabled={blocked} profiles={profiles.data ?? []} />
      {!blocked && <OwnPasswordForm needsCurrent={session.via === 'password'} />}
    </Page>
  );
}

function ScopeFields({ prefix, profiles, scope, setScope, chosen, setChosen }: any) {
  return (
    <fieldset>
      <legend>Profiles</legend>
      <label class="check">
        <input
          type="radio"
          name={`${prefix}-scope`}
          checked={scope !== 'profiles'}
          onChange={() => setScope(prefix === 'inv' ? 'all' : 'full')}
        />{' '}
        All profiles
      </label>
      <label class="check">
        <input
          type="radio"
          name={`${prefix}-scope`}
          checked={scope === 'profiles'}
          onChange={() => setScope('profiles')}
        />{' '}
        Only some
      </label>
      {scope === 'profiles' &&
        profiles.map((p: any) => (
          <label class="check">
            <input
              type="checkbox"
              checked={chosen.includes(p._id)}
              onChange={(e: any) =>
                setChosen(e.target.checked ? [...chosen, p._id] : chosen.filter((x: string) => x !== p._id))
              }
            />{' '}
            {p.name}
          </label>
        ))}
    </fieldset>
  );
}

function NewKey({
  disabled,
  profiles,
  onCreated,
}: {
  disabled: string | null;
  profiles: any[];
  onCreated: () => void;
}) {
  const [name, setName] = useState('');
  const [permission, setPermission] = useState('read-write');
  const [scope, setScope] = useState('full');
  const [chosen, setChosen] = useState<string[]>([]);
  const [created, setCreated] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  return (
    <form
      class="card"
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          const r = await api('POST', '/api-keys', {
            body: { name, permission, scope, ...(scope === 'profiles' ? { profileIds: chosen } : {}) },
          });
          setCreated(r.apiKey.key);
          setName('');
          setError(null);
          onCreated();
        } catch (err) {
          setError(err);
        }
      }}
    >
      <fieldset disabled={Boolean(disabled)}>
        <legend>New API key</legend>
        <label for="key-name">Name</label>
        <input id="key-name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <label for="key-permission">Permission</label>
        <select
          id="key-permission"
          value={permission}
          onChange={(e) => setPermission((e.target as HTMLSelectElement).value)}
        >
          <option value="read-write">Read and write</option>
          <option value="read">Read only</option>
        </select>
        <ScopeFields
          prefix="key"
          profiles={profiles}
          scope={scope}
          setScope={setScope}
          chosen={chosen}
          setChosen={setChosen}
        />
        <button title={disabled ?? undefined}>Create key</button>
      </fieldset>
      {created && (
        <div class="notice" role="status">
          <p>Copy the key now: it is shown only once.</p>
          <label for="new-key">New key</label>
          <input
            id="new-key"
            readOnly
            class="mono"
            value={created}
            onFocus={(e) => (e.target as HTMLInputElement).select()}
          />
        </div>
      )}
      <ErrorBox error={error} />
    </form>
  );
}

function Invite({ disabled, profiles }: { disabled: string | null; profiles: any[] }) {
  const [scope, setScope] = useState('all');
  const [chosen, setChosen] = useState<string[]>([]);
  const [invite, setInvite] = useState<any>(null);
  const [error, setError] = useState<unknown>(null);
  return (
    <form
      class="card"
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          setInvite(
            await api('POST', '/invite/tokens', {
              body: { scope, ...(scope === 'profiles' ? { profileIds: chosen } : {}) },
            }),
          );
          setError(null);
        } catch (err) {
          setError(err);
        }
      }}
    >
      <fieldset disabled={Boolean(disabled)}>
        <legend>Invite someone</legend>
        <ScopeFields
          prefix="inv"
          profiles={profiles}
          scope={scope}
          setScope={setScope}
          chosen={chosen}
          setChosen={setChosen}
        />
        <button title={disabled ?? undefined}>Create an invitation</button>
      </fieldset>
      {invite && (
        <div class="notice" role="status">
          <label for="invite-url">Invitation link (until {formatDate(invite.expiresAt)})</label>
          <input id="invite-url" readOnly class="mono" value={invite.inviteUrl} />
        </div>
      )}
      <ErrorBox error={error} />
    </form>
  );
}
