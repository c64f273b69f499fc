import { createPortal } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { platformLabel } from '../data';
import { navigate } from '../router';
import { toLocalInput } from '../time';
import { cannotWrite, Empty, ErrorBox, formatDate, Loading, StatusBadge, useSession } from '../ui';

const FINAL = new Set(['published', 'failed', 'partial', 'cancelled', 'draft']);

/** A post's targets (result, link, error) and its publishing log; reschedule, retry, delete. */
export function PostPanel({
  postId,
  zone,
  onClose,
  onChanged,
}: {
  postId: string;
  zone: string;
  onClose: () => void;
  onChanged: () => void;
}) {
  const session = useSession();
  const readOnly = cannotWrite(session);
  const [post, setPost] = useState<any>(null);
  const [logs, setLogs] = useState<any[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [when, setWhen] = useState('');
  const [tick, setTick] = useState(0);
  const panel = useRef<HTMLDivElement>(null);

  useEffect(() => {
    let live = true;
    Promise.all([api('GET', `/posts/${postId}`), api('GET', `/posts/${postId}/logs`, { query: { limit: 100 } })]).then(
      ([p, l]) => {
        if (!live) return;
        setPost(p.post);
        setLogs(l.logs);
        // The reschedule field starts at the post's time, in the zone shown.
        if (p.post.scheduledFor) setWhen((w) => w || toLocalInput(p.post.scheduledFor, zone));
        setError(null);
      },
      (e) => live && setError(e),
    );
    return () => {
      live = false;
    };
  }, [postId, tick]);

  // Watch it publish: poll while the post is on its way.
  useEffect(() => {
    if (!post || FINAL.has(post.status)) return;
    const t = setTimeout(() => setTick((n) => n + 1), 2000);
    return () => clearTimeout(t);
  }, [post, tick]);

  // A modal: the rest of the app is inert (neither focusable nor read) while it is open.
  useEffect(() => {
    const root = document.getElementById('root');
    const back = document.activeElement as HTMLElement | null;
    if (root) root.inert = true;
    return () => {
      if (root) root.inert = false;
      back?.focus?.();
    };
  }, []);

  useEffect(() => {
    panel.current?.focus();
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && onClose();
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);

  const act = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
      setError(null);
      setTick((n) => n + 1);
      onChanged();
    } catch (e) {
      setError(e);
    }
  };

  return createPortal(
    <div class="panel-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class="panel" role="dialog" aria-modal="true" aria-labelledby="post-title" tabIndex={-1} ref={panel}>
        <header class="panel-head">
          <h2 id="post-title">Post</h2>
          <button class="link" onClick={onClose} aria-label="Close the post">
            Close
          </button>
        </header>
        <ErrorBox error={error} />
        {!post ? (
          !error && <Loading what="Loading the post" />
        ) : (
          <>
            <p>
              <StatusBadge status={post.status} />{' '}
              {post.scheduledFor ? `for ${formatDate(post.scheduledFor, zone)}` : 'not scheduled'}
            </p>
            <blockquote class="content">{post.content || <em>No text</em>}</blockquote>
            {post.mediaItems?.length > 0 && (
              <>
                <p>
                  {post.mediaItems.length} media item{post.mediaItems.length > 1 ? 's' : ''}
                </p>
                <ul class="panel-media">
                  {post.mediaItems.filter(showable).map((m: any, i: number) => (
                    <li>
                      <img class="thumb" src={m.url} alt={`Media ${i + 1} of the post`} loading="lazy" />
                    </li>
                  ))}
                </ul>
              </>
            )}
            <h3>Targets</h3>
            <div class="table-wrap" tabIndex={0} role="region" aria-label="Table, scrolls sideways on narrow screens">
              <table class="targets">
                <thead>
                  <tr>
                    <th scope="col">Platform</th>
                    <th scope="col">Account</th>
                    <th scope="col">Status</th>
                    <th scope="col">Result</th>
                  </tr>
                </thead>
                <tbody>
                  {post.platforms.map((t: any) => (
                    <tr>
                      <td>{platformLabel(t.platform)}</td>
                      <td>{t.accountId?.username ?? ''}</td>
                      <td>
                        <StatusBadge status={t.status} />
                      </td>
                      <td>
                        {t.platformPostUrl ? (
                          <a href={t.platformPostUrl} target="_blank" rel="noopener noreferrer">
                            View on {platformLabel(t.platform)}
                          </a>
                        ) : (
                          (t.errorMessage ?? '—')
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {EDIT.has(post.status) && (
              <form
                class="row"
                onSubmit={(e) => {
                  e.preventDefault();
                  act(() => api('PUT', `/posts/${postId}`, { body: { scheduledFor: when, timezone: zone } }));
                }}
              >
                <label for="reschedule">Reschedule to ({zone})</label>
                <input
                  id="reschedule"
                  type="datetime-local"
                  required
                  value={when}
                  onInput={(e) => setWhen((e.target as HTMLInputElement).value)}
                />
                <button disabled={Boolean(readOnly)} title={readOnly ?? undefined}>
                  Reschedule
                </button>
              </form>
            )}
            <div class="row">
              {EDIT.has(post.status) && (
                <button
                  disabled={Boolean(readOnly)}
                  title={readOnly ?? undefined}
                  onClick={() => (onClose(), navigate(`compose?edit=${postId}`))}
                >
                  Edit post
                </button>
              )}
              {(post.status === 'failed' || post.status === 'partial') && (
                <button
                  disabled={Boolean(readOnly)}
                  title={readOnly ?? undefined}
                  onClick={() => act(() => api('POST', `/posts/${postId}/retry`))}
                >
                  Retry failed targets
                </button>
              )}
              {post.status !== 'published' && post.status !== 'partial' && (
                <button
                  class="danger"
                  disabled={Boolean(readOnly)}
                  title={readOnly ?? undefined}
                  onClick={() =>
                    confirm('Delete this post?') &&
                    act(async () => (await api('DELETE', `/posts/${postId}`), onClose()))
                  }
                >
                  Delete post
                </button>
              )}
            </div>
            <h3>Publishing log</h3>
            {!logs ? (
              <Loading />
            ) : logs.length === 0 ? (
              <Empty>Nothing has been attempted yet.</Empty>
            ) : (
              <div class="table-wrap" tabIndex={0} role="region" aria-label="Table, scrolls sideways on narrow screens">
                <table class="logs">
                  <caption class="sr-only">Publishing attempts, newest first</caption>
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Platform</th>
                      <th scope="col">Action</th>
                      <th scope="col">Status</th>
                      <th scope="col">Detail</th>
                    </tr>
                  </thead>
                  <tbody>
                    {logs.map((l) => (
                      <tr>
                        <td>{formatDate(l.createdAt, zone)}</td>
                        <td>{platformLabel(l.platform)}</td>
                        <td>{l.action}</td>
                        <td>
                          <StatusBadge status={l.status} />
                        </td>
                        <td>
                          {l.statusCode ?? ''} {l.response?.errorMessage ?? l.response?.platformPostUrl ?? ''} (
                          {l.durationMs} ms, attempt {l.attemptNumber})
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </>
        )}
      </div>
    </div>,
    document.body,
  );
}

const EDIT = new Set(['draft', 'scheduled']);

/** An image the page may show: Herald's own files, or any https image (the app's img-src). */
function showable(m: { type?: string; url?: string }): boolean {
  if (m.type !== 'image' && m.type !== 'gif') return false;
  try {
    const url = new URL(String(m.url), location.href);
    return url.origin === location.origin || url.protocol === 'https:';
  } catch {
    return false;
  }
}
