import { Calendar, type EventInput } from '@fullcalendar/core';
import dayGridPlugin from '@fullcalendar/daygrid';
import interactionPlugin from '@fullcalendar/interaction';
import listPlugin from '@fullcalendar/list';
import luxonPlugin from '@fullcalendar/luxon3';
import timeGridPlugin from '@fullcalendar/timegrid';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api';
import { takeEarlyPosts } from '../early';
import { ProfileAndZone } from '../components';
import { BROWSER_ZONE, firstLine, loadProfiles, platformLabel, platformMark, useChosenProfile } from '../data';
import { navigate } from '../router';
import { cannotWrite, ErrorBox, Page, useLoad, useSession } from '../ui';
import { PostPanel } from './post-panel';

const later = (fn: () => void) => void setTimeout(fn, 0);
const EDITABLE = new Set(['draft', 'scheduled']);
const VIEWS = new Set(['dayGridMonth', 'timeGridWeek', 'timeGridDay', 'listWeek', 'listDay']);
/** A phone's width: the layout's own breakpoint (styles.css). */
const narrow = () => matchMedia('(max-width: 700px)').matches;
const toolbar = () => ({
  left: 'prev,next today',
  center: 'title',
  right: narrow() ? 'listWeek,timeGridDay,dayGridMonth' : 'dayGridMonth,timeGridWeek,listWeek',
});
/** Entries a day shows in the month grid, a "+N more" entry included. */
const MONTH_PER_DAY = 3;
const formatters = new Map<string, Intl.DateTimeFormat>();
/** YYYY-MM-DD of an instant in a zone (en-CA writes dates that way). */
function dayFormatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f)
    formatters.set(
      zone,
      (f = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' })),
    );
  return f;
}

/** What hovering an entry shows: the status, platforms and the text it carries (the panel has all of it). */
function entryTitle(post: any): string {
  const text = [post.title, post.excerpt].filter(Boolean).join('\n');
  return `${post.status} · ${(post.platforms as string[]).map(platformLabel).join(', ')}\n${text || '(no text)'}`;
}

/** One calendar entry's content, built as DOM nodes (no HTML strings from post text): marks, time, first line. */
function entryNode(post: any, time: string): HTMLElement {
  const root = document.createElement('span');
  root.className = 'entry';
  root.title = entryTitle(post);
  const plats = document.createElement('span');
  plats.className = 'plats';
  for (const p of post.platforms as string[]) {
    const [glyph, colour] = platformMark(p);
    const mark = document.createElement('span');
    mark.className = 'mark';
    mark.style.background = colour;
    mark.textContent = glyph;
    mark.setAttribute('aria-hidden', 'true');
    plats.append(mark);
  }
  const label = document.createElement('span');
  label.className = 'sr-only';
  label.textContent = `${post.status}, ${(post.platforms as string[]).map(platformLabel).join(', ')}: `;
  const when = document.createElement('span');
  when.className = 'time';
  when.textContent = time;
  const text = document.createElement('span');
  text.className = 'text';
  text.textContent = firstLine(post);
  root.append(label, plats, when, text);
  return root;
}

/** The profile's next queue slots (none when it has no queue: asked first, so no 404 is provoked). */
async function freeSlots(profileId: string): Promise<string[]> {
  try {
    const q = await api('GET', '/queue/slots', { query: { profileId } });
    if (!q.exists) return [];
    return (await api('GET', '/queue/preview', { query: { profileId, count: 100 } })).slots;
  } catch {
    return [];
  }
}

export function CalendarPage() {
  const session = useSession();
  const host = useRef<HTMLDivElement>(null);
  const cal = useRef<Calendar | null>(null);
  const query = new URLSearchParams(location.search);
  const [zone, setZone] = useState(query.get('tz') || BROWSER_ZONE);
  const [openPost, setOpenPost] = useState<string | null>(query.get('post'));
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [count, setCount] = useState<{ shown: number; undated: number } | null>(null);
  const profiles = useLoad(loadProfiles, []);
  const [profileId, setProfileId] = useChosenProfile(profiles.data);
  const profileRef = useRef(profileId);
  profileRef.current = profileId;
  /**
   * The profile whose posts are drawn: the chosen one once there are several to choose from. With one
   * profile there is nothing to tell apart, so the first read (maybe the early one) is not repeated.
   */
  const postsProfile = (profiles.data?.length ?? 0) > 1 ? profileId : '';
  const postsProfileRef = useRef(postsProfile);
  postsProfileRef.current = postsProfile;
  const takenRef = useRef<Set<unknown>>(new Set());
  const postsRef = useRef<Promise<unknown>>(Promise.resolve());
  const cache = useRef<{ from: number; to: number; profile: string; posts: any[] } | null>(null);
  const zoneRef = useRef(zone);
  zoneRef.current = zone;
  /** Reads the posts again (after a change, and every 15 s). */
  const refresh = () => {
    cache.current = null;
    cal.current?.refetchEvents();
  };
  const readOnly = cannotWrite(session);

  /**
   * The posts of [start, end) as calendar entries. The posts of the fetched range are kept (`cache`), so
   * that switching between month, week and list views draws without asking again; a refresh drops them.
   * A range longer than a week (the month grid) gets at most MONTH_PER_DAY entries a day: beyond that,
   * a day shows MONTH_PER_DAY - 1 posts and one "+N more" entry opening the day's list. FullCalendar's
   * own dayMaxEvents still builds (hidden) and measures every entry, which for 1,000 posts was most of
   * the first load.
   */
  const loadPosts = async (startStr: string, endStr: string) => {
    const from = Date.parse(startStr);
    const to = Date.parse(endStr);
    const profile = postsProfileRef.current;
    let cached = cache.current?.profile === profile ? cache.current : null;
    if (!cached && !profile) {
      // The first month in view may have been read as the page opened (early.ts), for every profile.
      const early = takeEarlyPosts(from, to).then((r) => r && { ...r, profile });
      postsRef.current = early;
      cached = cache.current = await early;
    }
    if (!cached || cached.from > from || cached.to < to) {
      // One read of the period with only what an entry shows (GET /v1/posts/calendar), not 100-post pages of full posts.
      const loading = api('GET', '/posts/calendar', {
        query: {
          dateFrom: new Date(from).toISOString(),
          dateTo: new Date(to).toISOString(),
          limit: 5000,
          profileId: profile || undefined,
        },
      }).then((r) => r.posts as any[]);
      postsRef.current = loading;
      cached = { from, to, profile, posts: await loading };
      cache.current = cached;
    }
    const when = (p: any) => Date.parse(p.scheduledFor ?? p.createdAt);
    const posts = cached.posts.filter((p) => when(p) >= from && when(p) < to);
    takenRef.current = new Set(posts.map((p) => p.scheduledFor && Date.parse(p.scheduledFor)));
    const dated = posts.filter((p) => p.scheduledFor);
    const events: EventInput[] = [];
    const entry = (p: any): EventInput => ({
      id: p._id,
      start: p.scheduledFor,
      allDay: false,
      title: p.title || p.excerpt || '(no text)',
      classNames: ['post', `st-${p.status}`],
      startEditable: !readOnly && EDITABLE.has(p.status),
      extendedProps: { post: p },
    });
    if (to - from <= 7 * 86_400_000) {
      for (const p of dated) events.push(entry(p));
    } else {
      const dayOf = dayFormatter(zoneRef.current);
      const byDay = new Map<string, any[]>();
      for (const p of dated) {
        const d = dayOf.format(new Date(p.scheduledFor));
        const list = byDay.get(d);
        if (list) list.push(p);
        else byDay.set(d, [p]);
      }
      for (const [d, list] of byDay) {
        if (list.length <= MONTH_PER_DAY) {
          for (const p of list) events.push(entry(p));
          continue;
        }
        for (const p of list.slice(0, MONTH_PER_DAY - 1)) events.push(entry(p));
        const more = list.length - (MONTH_PER_DAY - 1);
        events.push({
          id: 'more-' + d,
          // At the first hidden post's time: after the day's shown posts.
          start: list[MONTH_PER_DAY - 1].scheduledFor,
          allDay: false,
          title: `+${more} more`,
          classNames: ['more-posts'],
          editable: false,
          extendedProps: { more, day: d },
        });
      }
    }
    // What the count says is what is drawn: a draft without a date has no place here (the Drafts page lists them).
    return { events, count: { shown: dated.length, undated: posts.length - dated.length } };
  };

  /** The chosen profile's free queue slots in [start, end): a second source, refetched alone when the profile changes. */
  const loadSlots = async (startStr: string, endStr: string): Promise<EventInput[]> => {
    const profile = profileRef.current;
    if (!profile) return [];
    const from = Date.parse(startStr);
    const to = Date.parse(endStr);
    // Slots taken by a post are not free: read the posts of this range first.
    const [slots] = await Promise.all([freeSlots(profile), postsRef.current.catch(() => null)]);
    return slots
      .filter((s) => {
        const t = Date.parse(s);
        return t >= from && t < to && !takenRef.current.has(t);
      })
      .map((s) => ({
        id: 'slot-' + s,
        start: s,
        title: 'Free queue slot',
        classNames: ['free-slot'],
        editable: false,
        extendedProps: { slot: s },
      }));
  };

  useEffect(() => {
    const view = query.get('view');
    const c: Calendar = new Calendar(host.current!, {
      plugins: [dayGridPlugin, timeGridPlugin, listPlugin, interactionPlugin, luxonPlugin],
      // On a phone the week grid's seven columns do not fit: the agenda (list) and one day take its place.
      initialView: view && VIEWS.has(view) ? view : narrow() ? 'listWeek' : 'dayGridMonth',
      initialDate: query.get('date') || undefined,
      timeZone: zone,
      height: 'auto',
      headerToolbar: toolbar(),
      windowResize: () => {
        c.setOption('headerToolbar', toolbar());
        const type = c.view.type;
        if (narrow() && type === 'timeGridWeek') c.changeView('timeGridDay');
        else if (!narrow() && type === 'timeGridDay') c.changeView('timeGridWeek');
      },
      // Words rather than icon fonts: the icons are role=img without a text alternative.
      buttonIcons: false,
      buttonText: {
        month: 'Month',
        week: 'Week',
        day: 'Day',
        list: 'List',
        today: 'Today',
        prev: '‹ Previous',
        next: 'Next ›',
      },
      // A day cell is named by its own content (day number and posts), not only by the date link.
      dayCellDidMount: (arg) => arg.el.removeAttribute('aria-labelledby'),
      // A number, not true: with height 'auto', true (fit the cell) makes cell height and event count chase each other.
      // loadPosts already keeps the month grid to MONTH_PER_DAY entries a day; one more for a free slot.
      dayMaxEvents: MONTH_PER_DAY + 1,
      eventDisplay: 'block',
      // 17:30, not "5:30p": the time leads each entry.
      eventTimeFormat: { hour: '2-digit', minute: '2-digit', hour12: false },
      editable: !readOnly,
      // Every range change asks loadPosts, which answers from the posts it holds when it can: the month
      // grid's entries (with "+N more") are not the week's.
      lazyFetching: false,
      eventDurationEditable: false,
      nowIndicator: true,
      // FullCalendar renders with the same Preact as the app: the app's state changes from its callbacks
      // wait for the next task, so that they never run inside the calendar's own render.
      eventSources: [
        {
          id: 'posts',
          events: (info, success, failure) => {
            later(() => setLoading(true));
            loadPosts(info.startStr, info.endStr).then(
              ({ events, count }) => {
                success(events);
                later(() => (setCount(count), setError(null), setLoading(false)));
              },
              (e) => {
                failure(e as Error);
                later(() => (setError(e), setLoading(false)));
              },
            );
          },
        },
        {
          id: 'slots',
          events: (info, success) => void loadSlots(info.startStr, info.endStr).then(success, () => success([])),
        },
      ],
      eventContent: (arg) => {
        const post = arg.event.extendedProps.post;
        if (arg.event.extendedProps.more)
          return {
            domNodes: [
              Object.assign(document.createElement('span'), {
                className: 'entry more',
                textContent: arg.event.title + ' posts',
              }),
            ],
          };
        if (!post)
          return {
            domNodes: [
              Object.assign(document.createElement('span'), {
                className: 'entry slot',
                textContent: '+ Free queue slot',
              }),
            ],
          };
        return { domNodes: [entryNode(post, arg.timeText)] };
      },
      eventDidMount: (arg) => {
        // Entries are links for the keyboard: Enter opens the post.
        arg.el.setAttribute('tabindex', '0');
        const post = arg.event.extendedProps.post;
        const { more, day } = arg.event.extendedProps;
        arg.el.setAttribute(
          'aria-label',
          post
            ? `${post.status} post at ${arg.timeText}, ${(post.platforms as string[]).map(platformLabel).join(', ')}: ${firstLine(post)}`
            : more
              ? `${more} more posts on ${day}: open the day`
              : 'Free queue slot: compose a post for it',
        );
        arg.el.dataset.postId = post?._id ?? '';
        arg.el.addEventListener('keydown', (e) => {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            arg.el.click();
          }
        });
      },
      eventClick: (arg) => {
        arg.jsEvent.preventDefault();
        const post = arg.event.extendedProps.post;
        if (post) later(() => setOpenPost(post._id));
        else if (arg.event.extendedProps.more) later(() => c.changeView('listDay', arg.event.extendedProps.day));
        else later(() => navigate(`compose?at=${encodeURIComponent(arg.event.extendedProps.slot)}`));
      },
      eventDrop: async (arg) => {
        const when = new Date(arg.event.startStr).toISOString();
        try {
          await api('PUT', `/posts/${arg.event.id}`, { body: { scheduledFor: when } });
          later(() => setError(null));
          refresh();
        } catch (e) {
          arg.revert();
          later(() => setError(e));
        }
      },
    });
    // Rendered after the app's commit: FullCalendar renders with the app's Preact, whose hook state a
    // render nested inside an effect would disturb.
    const first = setTimeout(() => c.render(), 0);
    cal.current = c;
    // Statuses change as the worker publishes: refresh what is in view.
    const timer = setInterval(() => document.visibilityState === 'visible' && refresh(), 15_000);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
      c.destroy();
    };
  }, []);

  useEffect(() => {
    cal.current?.setOption('timeZone', zone);
  }, [zone]);
  // The profile changes the free slots, and the posts when there are several profiles to tell apart.
  const shownProfile = useRef(profileId);
  const shownPostsProfile = useRef(postsProfile);
  useEffect(() => {
    if (postsProfile !== shownPostsProfile.current) {
      shownPostsProfile.current = postsProfile;
      shownProfile.current = profileId;
      refresh();
      return;
    }
    if (profileId === shownProfile.current) return;
    shownProfile.current = profileId;
    cal.current?.getEventSourceById('slots')?.refetch();
  }, [profileId, postsProfile]);

  return (
    <Page
      title="Calendar"
      actions={
        <>
          <ProfileAndZone
            id="cal"
            profiles={profiles.data}
            profileId={profileId}
            onProfile={setProfileId}
            zone={zone}
            onZone={setZone}
          />
          <button onClick={() => navigate('compose')} disabled={Boolean(readOnly)} title={readOnly ?? undefined}>
            New post
          </button>
        </>
      }
    >
      <ErrorBox error={error} />
      <p class="cal-status" role="status" aria-live="polite">
        {loading || !count
          ? 'Loading posts…'
          : count.shown === 0
            ? 'No posts in this period. Free queue slots are shown as places to fill.'
            : `${count.shown} post${count.shown === 1 ? '' : 's'} in view`}
        {!loading && count && count.undated > 0 && (
          <>
            {' '}
            ·{' '}
            <a href="/app/drafts" onClick={(e) => (e.preventDefault(), navigate('drafts'))}>
              {count.undated} draft{count.undated === 1 ? '' : 's'} without a date
            </a>
          </>
        )}
      </p>
      <div class="calendar" ref={host} />
      {openPost && <PostPanel postId={openPost} zone={zone} onClose={() => setOpenPost(null)} onChanged={refresh} />}
    </Page>
  );
}
