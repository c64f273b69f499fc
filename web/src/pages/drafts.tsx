import { useState } from 'preact/hooks';
import { api } from '../api';
import { ProfilePicker } from '../components';
import {
  BROWSER_ZONE,
  firstLine,
  loadAccounts,
  loadProfiles,
  platformLabel,
  platformMark,
  useChosenProfile,
} from '../data';
import { navigate } from '../router';
import { cannotWrite, Empty, ErrorBox, formatDate, Loading, Page, useLoad, useSession } from '../ui';
import { PostPanel } from './post-panel';

/*
 * Drafts (GET /v1/posts?status=draft): the ones without a date, which the calendar has no place for,
 * first, then the dated ones. Filtered by the chosen profile when there are several.
 */
export function DraftsPage() {
  const session = useSession();
  const readOnly = cannotWrite(session);
  const profiles = useLoad(loadProfiles, []);
  const [profileId, setProfileId] = useChosenProfile(profiles.data);
  const several = (profiles.data?.length ?? 0) > 1;
  const [open, setOpen] = useState<string | null>(null);
  // All drafts, then those of the chosen profile's accounts, and those with no account yet (no profile).
  const drafts = useLoad(async () => {
    if (!profiles.data) return null;
    const [all, accounts] = await Promise.all([
      api('GET', '/posts', { query: { status: 'draft', limit: 100, sortBy: 'created-desc' } }).then(
        (r) => r.posts as any[],
      ),
      several ? loadAccounts(profileId) : Promise.resolve(null),
    ]);
    if (!accounts) return all;
    const mine = new Set(accounts.map((a) => a._id));
    return all.filter(
      (p) => !p.platforms.length || p.platforms.some((t: any) => mine.has(t.accountId?._id ?? t.accountId)),
    );
  }, [profiles.data, several ? profileId : '']);
  const list = drafts.data ?? [];
  const undated = list.filter((p) => !p.scheduledFor);
  const dated = list.filter((p) => p.scheduledFor);
  return (
    <Page
      title="Drafts"
      actions={
        several && profiles.data ? (
          <ProfilePicker profiles={profiles.data} value={profileId} onChange={setProfileId} id="drafts-profile" />
        ) : null
      }
    >
      <ErrorBox error={profiles.error ?? drafts.error} />
      {drafts.loading || !drafts.data ? (
        !drafts.error && <Loading what="Loading drafts" />
      ) : !list.length ? (
        <Empty>
          No drafts.{' '}
          <a href="/app/compose" onClick={(e) => (e.preventDefault(), navigate('compose'))}>
            Write one
          </a>{' '}
          and choose "Save as draft".
        </Empty>
      ) : (
        <>
          <p role="status">
            {undated.length} draft{undated.length === 1 ? '' : 's'} without a date, {dated.length} with one.
          </p>
          <h2>Without a date</h2>
          {undated.length ? <DraftList posts={undated} onOpen={setOpen} readOnly={readOnly} /> : <Empty>None.</Empty>}
          <h2>With a date</h2>
          {dated.length ? <DraftList posts={dated} onOpen={setOpen} readOnly={readOnly} /> : <Empty>None.</Empty>}
        </>
      )}
      {open && <PostPanel postId={open} zone={BROWSER_ZONE} onClose={() => setOpen(null)} onChanged={drafts.reload} />}
    </Page>
  );
}

function DraftList({
  posts,
  onOpen,
  readOnly,
}: {
  posts: any[];
  onOpen: (id: string) => void;
  readOnly: string | null;
}) {
  return (
    <ul class="cards drafts">
      {posts.map((p) => {
        const platforms: string[] = [...new Set<string>(p.platforms.map((t: any) => t.platform))];
        return (
          <li class="card" data-post-id={p._id}>
            <p class="draft-head">
              <span class="plats">
                {platforms.map((pl) => {
                  const [glyph, colour] = platformMark(pl);
                  return (
                    <span class="mark" style={{ background: colour }} aria-hidden="true">
                      {glyph}
                    </span>
                  );
                })}
              </span>
              <span class="sr-only">{platforms.map(platformLabel).join(', ') || 'No account yet'}: </span>
              <strong class="draft-text" title={p.content}>
                {firstLine(p)}
              </strong>
            </p>
            <p class="muted">
              {p.scheduledFor ? `For ${formatDate(p.scheduledFor)}` : 'No date'} · written {formatDate(p.createdAt)}
            </p>
            <div class="row">
              <button
                disabled={Boolean(readOnly)}
                title={readOnly ?? undefined}
                onClick={() => navigate(`compose?edit=${p._id}`)}
              >
                Edit draft
              </button>
              <button class="secondary" onClick={() => onOpen(p._id)}>
                Open
              </button>
            </div>
          </li>
        );
      })}
    </ul>
  );
}
