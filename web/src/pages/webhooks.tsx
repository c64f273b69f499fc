import { useState } from 'preact/hooks';
import { EVENT_TYPES as EVENTS } from '../../../src/domain/event-types';
import { api } from '../api';
import { Empty, ErrorBox, formatDate, Loading, Page, StatusBadge, useLoad, useSession } from '../ui';

export function WebhooksPage() {
  const session = useSession();
  // Webhooks see every profile's events: the API refuses them to a profile-scoped caller.
  const blocked =
    session.scope !== 'full' || session.profileIds !== null ? 'Webhooks need a key that sees every profile' : null;
  const readOnly = blocked ?? (session.permission === 'read' ? 'This API key is read-only' : null);
  const hooks = useLoad(() => (blocked ? Promise.resolve({ webhooks: [] }) : api('GET', '/webhooks/settings')), []);
  const [openLogs, setOpenLogs] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<string | null>(null);

  return (
    <Page title="Webhooks">
      {blocked && <p class="notice">{blocked}.</p>}
      <ErrorBox error={error ?? hooks.error} />
      {result && (
        <p class="notice" role="status">
          {result}
        </p>
      )}
      <NewWebhook disabled={readOnly} onCreated={hooks.reload} />
      <h2>Endpoints</h2>
      {hooks.loading && !hooks.data ? (
        <Loading what="Loading webhooks" />
      ) : !hooks.data?.webhooks.length ? (
        <Empty>No webhook yet.</Empty>
      ) : (
        <ul class="cards">
          {hooks.data.webhooks.map((w: any) => (
            <li class="card">
              <h3>{w.name}</h3>
              <p class="mono">{w.url}</p>
              <p>
                {w.isActive ? 'Active' : 'Paused'} · {w.events.join(', ')} · last fired {formatDate(w.lastFiredAt)}
              </p>
              <div class="row">
                <button
                  disabled={Boolean(readOnly)}
                  title={readOnly ?? undefined}
                  onClick={async () => {
                    try {
                      const r = await api('POST', '/webhooks/test', { body: { webhookId: w._id } });
                      setResult(r.message ?? 'Test sent');
                      setError(null);
                    } catch (e) {
                      setError(e);
                    }
                  }}
                >
                  Send a test
                </button>
                <button
                  aria-expanded={openLogs === w._id}
                  onClick={() => setOpenLogs(openLogs === w._id ? null : w._id)}
                >
                  Deliveries
                </button>
                <button
                  class="danger"
                  disabled={Boolean(readOnly)}
                  title={readOnly ?? undefined}
                  onClick={async () => {
                    if (!confirm(`Delete the webhook ${w.name}?`)) return;
                    try {
                      await api('DELETE', '/webhooks/settings', { query: { id: w._id } });
                      hooks.reload();
                    } catch (e) {
                      setError(e);
                    }
                  }}
                >
                  Delete
                </button>
              </div>
              {openLogs === w._id && <Deliveries webhookId={w._id} />}
            </li>
          ))}
        </ul>
      )}
    </Page>
  );
}

function Deliveries({ webhookId }: { webhookId: string }) {
  const logs = useLoad(() => api('GET', '/webhooks/logs', { query: { webhookId, limit: 50 } }), [webhookId]);
  if (logs.loading && !logs.data) return <Loading what="Loading deliveries" />;
  if (logs.error) return <ErrorBox error={logs.error} />;
  if (!logs.data.logs.length) return <Empty>No delivery yet.</Empty>;
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label="Table, scrolls sideways on narrow screens">
      <table>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">HTTP</th>
          </tr>
        </thead>
        <tbody>
          {logs.data.logs.map((l: any) => (
            <tr>
              <td>{formatDate(l.createdAt)}</td>
              <td>{l.event}</td>
              <td>
                <StatusBadge status={l.status === 'success' ? 'published' : 'failed'} /> {l.errorMessage ?? ''}
              </td>
              <td>{l.statusCode ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function NewWebhook({ disabled, onCreated }: { disabled: string | null; onCreated: () => void }) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [events, setEvents] = useState<string[]>(['post.published', 'post.failed']);
  const [error, setError] = useState<unknown>(null);
  return (
    <form
      class="card"
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          await api('POST', '/webhooks/settings', { body: { name, url, events, ...(secret ? { secret } : {}) } });
          setName('');
          setUrl('');
          setSecret('');
          setError(null);
          onCreated();
        } catch (err) {
          setError(err);
        }
      }}
    >
      <fieldset disabled={Boolean(disabled)}>
        <legend>New webhook</legend>
        <label for="wh-name">Name</label>
        <input id="wh-name" required value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <label for="wh-url">URL (https, public host)</label>
        <input
          id="wh-url"
          type="url"
          required
          value={url}
          onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
        />
        <label for="wh-secret">Signing secret (optional)</label>
        <input
          id="wh-secret"
          type="password"
          value={secret}
          onInput={(e) => setSecret((e.target as HTMLInputElement).value)}
        />
        <fieldset>
          <legend>Events</legend>
          {EVENTS.map((ev) => (
            <label class="check">
              <input
                type="checkbox"
                checked={events.includes(ev)}
                onChange={(e) =>
                  setEvents((s) => ((e.target as HTMLInputElement).checked ? [...s, ev] : s.filter((x) => x !== ev)))
                }
              />{' '}
              {ev}
            </label>
          ))}
        </fieldset>
        <button title={disabled ?? undefined}>Create webhook</button>
        <ErrorBox error={error} />
      </fieldset>
    </form>
  );
}
