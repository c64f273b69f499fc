import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { loadMedia, MediaThumb, type MediaItem } from '../media-picker';
import { cannotWrite, Empty, ErrorBox, formatDate, Loading, Page, useSession } from '../ui';

const sizeOf = (n: number | null) =>
  n === null ? '' : n < 1024 * 1024 ? `${Math.max(1, Math.round(n / 1024))} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;

/** The media library: every upload of the team, newest first, with thumbnails; unused ones can be deleted. */
export function MediaPage() {
  const session = useSession();
  const readOnly = cannotWrite(session);
  const [items, setItems] = useState<MediaItem[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState('');

  const more = async (before?: string) => {
    setLoading(true);
    try {
      const page = await loadMedia({ limit: 48, before });
      setItems((all) => (before ? [...all, ...page.media] : page.media));
      setCursor(page.nextCursor);
    } catch (e) {
      setError(e);
    }
    setLoading(false);
  };
  useEffect(() => {
    void more();
  }, []);

  return (
    <Page title="Media">
      <p class="muted">
        Files uploaded for posts. Reuse one from the composer’s “Choose from library”; a file a post uses cannot be
        deleted.
      </p>
      <ErrorBox error={error} />
      <p role="status" class="sr-only">
        {status}
      </p>
      {loading && items.length === 0 ? (
        <Loading what="Loading media" />
      ) : items.length === 0 ? (
        <Empty>No uploads yet.</Empty>
      ) : (
        <ul class="media-grid" aria-label="Uploads">
          {items.map((m) => (
            <li key={m._id}>
              <a href={m.url} target="_blank" rel="noopener noreferrer" aria-label={`Open ${m.filename}`}>
                <MediaThumb item={m} />
              </a>
              <span class="name">{m.filename}</span>
              <span class="muted">
                {[m.width && m.height ? `${m.width}×${m.height}` : '', sizeOf(m.size)].filter(Boolean).join(' · ')}
              </span>
              <span class="muted">{formatDate(m.createdAt)}</span>
              <button
                type="button"
                class="small danger"
                disabled={Boolean(readOnly)}
                title={readOnly ?? undefined}
                aria-label={`Delete ${m.filename}`}
                onClick={async () => {
                  if (!confirm(`Delete ${m.filename}? Its public URL stops working.`)) return;
                  setError(null);
                  try {
                    await api('DELETE', `/media/${m._id}`);
                    setItems((all) => all.filter((x) => x._id !== m._id));
                    setStatus(`${m.filename} deleted`);
                  } catch (e) {
                    setError(e);
                  }
                }}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      {cursor && (
        <button type="button" disabled={loading} onClick={() => more(cursor)}>
          {loading ? 'Loading…' : 'Show older'}
        </button>
      )}
    </Page>
  );
}
