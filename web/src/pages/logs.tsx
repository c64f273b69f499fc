import { useState } from 'preact/hooks';
import { api } from '../api';
import { allPlatforms, platformLabel } from '../data';
import { Empty, ErrorBox, formatDate, Loading, Page, StatusBadge, useLoad } from '../ui';

const PAGE = 50;

export function LogsPage() {
  const [status, setStatus] = useState('all');
  const [platform, setPlatform] = useState('all');
  const [action, setAction] = useState('all');
  const [days, setDays] = useState(7);
  const [search, setSearch] = useState('');
  const [skip, setSkip] = useState(0);
  const logs = useLoad(
    () => api('GET', '/logs', { query: { status, platform, action, days, search, limit: PAGE, skip } }),
    [status, platform, action, days, search, skip],
  );
  const select = (id: string, label: string, value: string | number, set: (v: string) => void, options: string[]) => (
    <span class="inline-field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => (set((e.target as HTMLSelectElement).value), setSkip(0))}>
        {options.map((o) => (
          <option value={o}>{o}</option>
        ))}
      </select>
    </span>
  );
  return (
    <Page title="Publishing logs">
      <form class="filters row" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        {select('log-status', 'Status', status, setStatus, ['all', 'success', 'failed', 'pending', 'skipped'])}
        {select('log-platform', 'Platform', platform, setPlatform, ['all', ...allPlatforms().map((p) => p.id)])}
        {select('log-action', 'Action', action, setAction, [
          'all',
          'publish',
          'retry',
          'media_upload',
          'rate_limit_pause',
          'token_refresh',
          'cancelled',
        ])}
        {select('log-days', 'Days', days, (v) => setDays(Number(v)), ['1', '2', '3', '4', '5', '6', '7'])}
        <span class="inline-field">
          <label for="log-search">Search</label>
          <input
            id="log-search"
            type="search"
            value={search}
            onChange={(e) => (setSearch((e.target as HTMLInputElement).value), setSkip(0))}
          />
        </span>
      </form>
      <ErrorBox error={logs.error} />
      {logs.loading && !logs.data ? (
        <Loading what="Loading logs" />
      ) : !logs.data?.logs.length ? (
        <Empty>No publishing attempt matches these filters.</Empty>
      ) : (
        <>
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Table, scrolls sideways on narrow screens">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Platform</th>
                  <th scope="col">Account</th>
                  <th scope="col">Action</th>
                  <th scope="col">Status</th>
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                {logs.data.logs.map((l: any) => (
                  <tr>
                    <td>{formatDate(l.createdAt)}</td>
                    <td>{platformLabel(l.platform)}</td>
                    <td>{l.accountUsername ?? ''}</td>
                    <td>{l.action}</td>
                    <td>
                      <StatusBadge status={l.status} />
                    </td>
                    <td>
                      {l.response?.errorMessage ?? l.request?.contentPreview ?? ''}{' '}
                      {l.response?.platformPostUrl && (
                        <a href={l.response.platformPostUrl} target="_blank" rel="noopener noreferrer">
                          link
                        </a>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div class="row">
            <button disabled={skip === 0} onClick={() => setSkip(Math.max(0, skip - PAGE))}>
              Newer
            </button>
            <span>
              {skip + 1}–{skip + logs.data.logs.length} of {logs.data.pagination.total}
            </span>
            <button disabled={!logs.data.pagination.hasMore} onClick={() => setSkip(skip + PAGE)}>
              Older
            </button>
          </div>
        </>
      )}
    </Page>
  );
}
