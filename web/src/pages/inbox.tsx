import { useState } from 'preact/hooks';
import { api } from '../api';
import { ProfilePicker } from '../components';
import { loadProfiles, platformLabel, useChosenProfile } from '../data';
import { cannotWrite, Empty, ErrorBox, formatDate, Loading, Page, useLoad, useSession } from '../ui';

/*
 * The inbox add-on: conversations (GET /v1/inbox/conversations, their messages, replying), comments on
 * the accounts' posts (GET /v1/inbox/comments, a post's comments, replying) and reviews (GET
 * /v1/inbox/reviews, replying). A platform that cannot do something answers 400 PLATFORM_LIMITATION,
 * shown with its message.
 */

type Tab = 'conversations' | 'comments' | 'reviews';

export function InboxPage() {
  const profiles = useLoad(loadProfiles, []);
  const [profileId, setProfileId] = useChosenProfile(profiles.data);
  const [tab, setTab] = useState<Tab>('conversations');
  return (
    <Page title="Inbox" actions={profiles.data && profiles.data.length > 0 ? <ProfilePicker profiles={profiles.data} value={profileId} onChange={setProfileId} id="inbox-profile" /> : null}>
      <div class="row" role="group" aria-label="Inbox sections">
        {(['conversations', 'comments', 'reviews'] as Tab[]).map((t) => (
          <button class={tab === t ? '' : 'secondary'} aria-pressed={tab === t} onClick={() => setTab(t)}>
            {t[0].toUpperCase() + t.slice(1)}
          </button>
        ))}
      </div>
      {tab === 'conversations' && <Conversations profileId={profileId} />}
      {tab === 'comments' && <Comments profileId={profileId} />}
      {tab === 'reviews' && <Reviews profileId={profileId} />}
    </Page>
  );
}

/** A reply box: sends, then clears and tells the list to reload. */
function ReplyForm({ id, label, send, onSent }: { id: string; label: string; send: (text: string) => Promise<unknown>; onSent: () => void }) {
  const session = useSession();
  const readOnly = cannotWrite(session);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  return (
    <form
      class="reply"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(null);
        try {
          await send(text);
          setText('');
          onSent();
        } catch (err) {
          setError(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      <label for={id}>{label}</label>
      <textarea id={id} rows={2} required value={text} disabled={Boolean(readOnly)} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
      <button disabled={busy || !text.trim() || Boolean(readOnly)} title={readOnly ?? undefined}>
        {busy ? 'Sending…' : 'Send'}
      </button>
      <ErrorBox error={error} />
    </form>
  );
}

function Conversations({ profileId }: { profileId: string }) {
  const list = useLoad(() => api('GET', '/inbox/conversations', { query: { profileId: profileId || undefined, limit: 50 } }), [profileId]);
  const [open, setOpen] = useState<any>(null);
  const items: any[] = list.data?.data ?? [];
  return (
    <section aria-labelledby="inbox-conv">
      <h2 id="inbox-conv">Conversations</h2>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? (
        <Loading what="Loading conversations" />
      ) : !items.length ? (
        <Empty>No conversation yet.</Empty>
      ) : (
        <ul class="inbox-list">
          {items.map((c) => (
            <li>
              <button class="link" onClick={() => setOpen(c)} aria-expanded={open?.id === c.id}>
                {c.participantName || c.participantId}
              </button>{' '}
              <span class="muted">
                {platformLabel(c.platform)} · {c.accountUsername} · {formatDate(c.updatedTime)}
              </span>
              <div>{c.lastMessage}</div>
              {open?.id === c.id && <ConversationView conversation={c} onSent={list.reload} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function ConversationView({ conversation: c, onSent }: { conversation: any; onSent: () => void }) {
  const path = `/inbox/conversations/${encodeURIComponent(c.id)}/messages`;
  const messages = useLoad(() => api('GET', path, { query: { accountId: c.accountId, limit: 50 } }), [c.id]);
  return (
    <div class="thread-view">
      <ErrorBox error={messages.error} />
      {messages.loading && !messages.data ? (
        <Loading what="Loading messages" />
      ) : (
        (messages.data?.messages ?? []).map((m: any) => (
          <p class={`msg ${m.direction === 'outgoing' ? 'out' : 'in'}`}>
            <strong>{m.direction === 'outgoing' ? 'You' : m.senderName || m.senderId}:</strong> {m.message} <span class="muted">{formatDate(m.createdAt)}</span>
          </p>
        ))
      )}
      <ReplyForm
        id={`reply-${c.id}`}
        label={`Reply to ${c.participantName || c.participantId}`}
        send={(message) => api('POST', path, { body: { accountId: c.accountId, message } })}
        onSent={() => (messages.reload(), onSent())}
      />
    </div>
  );
}

function Comments({ profileId }: { profileId: string }) {
  const list = useLoad(() => api('GET', '/inbox/comments', { query: { profileId: profileId || undefined, limit: 50 } }), [profileId]);
  const [open, setOpen] = useState<any>(null);
  const items: any[] = list.data?.data ?? [];
  return (
    <section aria-labelledby="inbox-comments">
      <h2 id="inbox-comments">Comments on your posts</h2>
      <ErrorBox error={list.error} />
      {list.loading && !list.data ? (
        <Loading what="Loading commented posts" />
      ) : !items.length ? (
        <Empty>No comments yet.</Empty>
      ) : (
        <ul class="inbox-list">
          {items.map((p) => (
            <li>
              <button class="link" onClick={() => setOpen(p)} aria-expanded={open?.id === p.id}>
                {(p.content || p.id).slice(0, 80)}
              </button>{' '}
              <span class="muted">
                {platformLabel(p.platform)} · {p.commentCount} comment{p.commentCount === 1 ? '' : 's'}
              </span>
              {open?.id === p.id && <PostComments post={p} />}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function PostComments({ post: p }: { post: any }) {
  const path = `/inbox/comments/${encodeURIComponent(p.id)}`;
  const comments = useLoad(() => api('GET', path, { query: { accountId: p.accountId } }), [p.id]);
  return (
    <div class="thread-view">
      <ErrorBox error={comments.error} />
      {comments.loading && !comments.data ? (
        <Loading what="Loading comments" />
      ) : (
        (comments.data?.comments ?? []).map((c: any) => (
          <div class="msg">
            <strong>{c.from?.name || c.from?.username}:</strong> {c.message}
            {(c.replies ?? []).map((r: any) => (
              <p class="msg out">
                <strong>{r.from?.name || r.from?.username}:</strong> {r.message}
              </p>
            ))}
            {c.canReply && (
              <ReplyForm id={`creply-${c.id}`} label={`Reply to ${c.from?.name || 'this comment'}`} send={(message) => api('POST', path, { body: { accountId: p.accountId, message, commentId: c.id } })} onSent={comments.reload} />
            )}
          </div>
        ))
      )}
    </div>
  );
}

function Reviews({ profileId }: { profileId: string }) {
  const list = useLoad(() => api('GET', '/inbox/reviews', { query: { profileId: profileId || undefined, limit: 50 } }), [profileId]);
  const items: any[] = list.data?.data ?? [];
  return (
    <section aria-labelledby="inbox-reviews">
      <h2 id="inbox-reviews">Reviews</h2>
      <ErrorBox error={list.error} />
      {list.data?.summary?.totalReviews ? (
        <p>
          {list.data.summary.totalReviews} reviews, {list.data.summary.averageRating} average
        </p>
      ) : null}
      {list.loading && !list.data ? (
        <Loading what="Loading reviews" />
      ) : !items.length ? (
        <Empty>No review yet.</Empty>
      ) : (
        <ul class="inbox-list">
          {items.map((r) => (
            <li>
              <strong>{r.reviewer?.name}</strong> <span aria-label={`${r.rating} out of 5`}>{'★'.repeat(r.rating)}</span> <span class="muted">{formatDate(r.created)}</span>
              <div>{r.text}</div>
              {r.reply ? (
                <p class="msg out">Your reply: {r.reply.text}</p>
              ) : (
                <ReplyForm id={`rreply-${r.id}`} label={`Reply to ${r.reviewer?.name}`} send={(message) => api('POST', `/inbox/reviews/${encodeURIComponent(r.id)}/reply`, { body: { accountId: r.accountId, message } })} onSent={list.reload} />
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
