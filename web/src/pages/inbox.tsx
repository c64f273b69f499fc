import type { ComponentChildren } from 'preact';
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
const TABS: Tab[] = ['conversations', 'comments', 'reviews'];

export function InboxPage() {
  const profiles = useLoad(loadProfiles, []);
  const [profileId, setProfileId] = useChosenProfile(profiles.data);
  const [tab, setTab] = useState<Tab>('conversations');
  return (
    <Page
      title="Inbox"
      actions={
        profiles.data && profiles.data.length > 0 ? (
          <ProfilePicker profiles={profiles.data} value={profileId} onChange={setProfileId} id="inbox-profile" />
        ) : null
      }
    >
      <div class="tabs" role="tablist" aria-label="Inbox sections">
        {TABS.map((t) => (
          <button
            role="tab"
            id={`inbox-tab-${t}`}
            aria-selected={tab === t}
            aria-controls="inbox-panel"
            tabIndex={tab === t ? 0 : -1}
            onClick={() => setTab(t)}
            onKeyDown={(e) => {
              // Arrow keys move between tabs (the WAI-ARIA tabs pattern).
              const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
              if (!step) return;
              const next = TABS[(TABS.indexOf(t) + step + TABS.length) % TABS.length];
              setTab(next);
              document.getElementById(`inbox-tab-${next}`)?.focus();
            }}
          >
            {t[0].toUpperCase() + t.slice(1)}
          </button>
        ))}
      </div>
      <div role="tabpanel" id="inbox-panel" aria-labelledby={`inbox-tab-${tab}`}>
        {tab === 'conversations' && <Conversations profileId={profileId} />}
        {tab === 'comments' && <Comments profileId={profileId} />}
        {tab === 'reviews' && <Reviews profileId={profileId} />}
      </div>
    </Page>
  );
}

/** A reply box: sends, then clears and tells the list to reload. */
function ReplyForm({
  id,
  label,
  send,
  onSent,
}: {
  id: string;
  label: string;
  send: (text: string) => Promise<unknown>;
  onSent: () => void;
}) {
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
      <textarea
        id={id}
        rows={2}
        required
        value={text}
        disabled={Boolean(readOnly)}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
      />
      <button disabled={busy || !text.trim() || Boolean(readOnly)} title={readOnly ?? undefined}>
        {busy ? 'Sending…' : 'Send'}
      </button>
      <ErrorBox error={error} />
    </form>
  );
}

/** One inbox list (GET /v1/inbox/...): its heading, the API's error, the loading and empty states, an entry per item. */
function InboxSection(props: {
  id: string;
  heading: string;
  list: ReturnType<typeof useLoad<any>>;
  loading: string;
  empty: string;
  intro?: ComponentChildren;
  children: (item: any) => ComponentChildren;
}) {
  const { id, list } = props;
  const items: any[] = list.data?.data ?? [];
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{props.heading}</h2>
      <ErrorBox error={list.error} />
      {props.intro}
      {list.loading && !list.data ? (
        <Loading what={props.loading} />
      ) : !items.length ? (
        <Empty>{props.empty}</Empty>
      ) : (
        <ul class="inbox-list">
          {items.map((item) => (
            <li>{props.children(item)}</li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * A list whose entries open in place (conversations, commented posts): each entry's name as a toggle,
 * what it is, its last words, and, open, its thread (`thread`, given the list's reload).
 */
function OpenableList(props: {
  path: string;
  profileId: string;
  id: string;
  heading: string;
  loading: string;
  empty: string;
  entry: (item: any) => { name: string; about: string; last?: string };
  thread: (item: any, reload: () => void) => ComponentChildren;
}) {
  const list = useLoad(
    () => api('GET', props.path, { query: { profileId: props.profileId || undefined, limit: 50 } }),
    [props.profileId],
  );
  const [open, setOpen] = useState<string | null>(null);
  return (
    <InboxSection id={props.id} heading={props.heading} list={list} loading={props.loading} empty={props.empty}>
      {(item) => {
        const { name, about, last } = props.entry(item);
        return (
          <>
            <button class="link" onClick={() => setOpen(item.id)} aria-expanded={open === item.id}>
              {name}
            </button>{' '}
            <span class="muted">{about}</span>
            {last !== undefined && <div>{last}</div>}
            {open === item.id && props.thread(item, list.reload)}
          </>
        );
      }}
    </InboxSection>
  );
}

function Conversations({ profileId }: { profileId: string }) {
  return (
    <OpenableList
      path="/inbox/conversations"
      profileId={profileId}
      id="inbox-conv"
      heading="Conversations"
      loading="Loading conversations"
      empty="No conversation yet."
      entry={(c) => ({
        name: c.participantName || c.participantId,
        about: `${platformLabel(c.platform)} · ${c.accountUsername} · ${formatDate(c.updatedTime)}`,
        last: c.lastMessage ?? '',
      })}
      thread={(c, reload) => <ConversationView conversation={c} onSent={reload} />}
    />
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
            <strong>{m.direction === 'outgoing' ? 'You' : m.senderName || m.senderId}:</strong> {m.message}{' '}
            <span class="muted">{formatDate(m.createdAt)}</span>
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
  return (
    <OpenableList
      path="/inbox/comments"
      profileId={profileId}
      id="inbox-comments"
      heading="Comments on your posts"
      loading="Loading commented posts"
      empty="No comments yet."
      entry={(p) => ({
        name: (p.content || p.id).slice(0, 80),
        about: `${platformLabel(p.platform)} · ${p.commentCount} comment${p.commentCount === 1 ? '' : 's'}`,
      })}
      thread={(p) => <PostComments post={p} />}
    />
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
              <ReplyForm
                id={`creply-${c.id}`}
                label={`Reply to ${c.from?.name || 'this comment'}`}
                send={(message) => api('POST', path, { body: { accountId: p.accountId, message, commentId: c.id } })}
                onSent={comments.reload}
              />
            )}
          </div>
        ))
      )}
    </div>
  );
}

function Reviews({ profileId }: { profileId: string }) {
  const list = useLoad(
    () => api('GET', '/inbox/reviews', { query: { profileId: profileId || undefined, limit: 50 } }),
    [profileId],
  );
  return (
    <InboxSection
      id="inbox-reviews"
      heading="Reviews"
      list={list}
      loading="Loading reviews"
      empty="No review yet."
      intro={
        list.data?.summary?.totalReviews ? (
          <p>
            {list.data.summary.totalReviews} reviews, {list.data.summary.averageRating} average
          </p>
        ) : null
      }
    >
      {(r) => (
        <>
          <strong>{r.reviewer?.name}</strong> <span aria-label={`${r.rating} out of 5`}>{'★'.repeat(r.rating)}</span>{' '}
          <span class="muted">{formatDate(r.created)}</span>
          <div>{r.text}</div>
          {r.reply ? (
            <p class="msg out">Your reply: {r.reply.text}</p>
          ) : (
            <ReplyForm
              id={`rreply-${r.id}`}
              label={`Reply to ${r.reviewer?.name}`}
              send={(message) =>
                api('POST', `/inbox/reviews/${encodeURIComponent(r.id)}/reply`, {
                  body: { accountId: r.accountId, message },
                })
              }
              onSent={list.reload}
            />
          )}
        </>
      )}
    </InboxSection>
  );
}
