import { Calendar, type EventInput } from '@fullcalendar/core';
import dayGridPlugin from '@fullcalendar/daygrid';
import interactionPlugin from '@fullcalendar/interaction';
import listPlugin from '@fullcalendar/list';
import luxonPlugin from '@fullcalendar/luxon3';
import timeGridPlugin from '@fullcalendar/timegrid';
import { useEffect, useRef, useState } from 'preact/hooks';
import { allPages, api } from '../api';
import { ProfilePicker, ZonePicker } from '../components';
import { BROWSER_ZONE, loadProfiles, platformLabel, useChosenProfile } from '../data';
import { navigate } from '../router';
import { cannotWrite, ErrorBox, Page, useLoad, useSession } from '../ui';
import { PostPanel } from './post-panel';

const later = (fn: () => void) => void setTimeout(fn, 0);
const EDITABLE = new Set(['draft', 'scheduled']);
const VIEWS = new Set(['dayGridMonth', 'timeGridWeek', 'listWeek']);

/** One calendar entry's content, built as DOM nodes (no HTML strings from post text). */
function entryNode(post: any): HTMLElement {
  const root = document.createElement('span');
  root.className = 'entry';
  const status = document.createElement('span');
  status.className = `badge st-${post.status}`;
  status.textContent = post.status;
  const plats = document.createElement('span');
  plats.className = 'plats';
  plats.textContent = [...new Set((post.platforms ?? []).map((t: any) => platformLabel(t.platform)))].join(', ');
  const text = document.createElement('span');
  text.className = 'text';
  text.textContent = post.title || post.content || '(no text)';
  root.append(status, ' ', plats, ' ', text);
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
  const [count, setCount] = useState<number | null>(null);
  const profiles = useLoad(loadProfiles, []);
  const [profileId, setProfileId] = useChosenProfile(profiles.data);
  const profileRef = useRef(profileId);
  profileRef.current = profileId;
  const readOnly = cannotWrite(session);

  const loadEvents = async (startStr: string, endStr: string) => {
    const from = new Date(startStr).toISOString();
    const to = new Date(endStr).toISOString();
    const [posts, slots] = await Promise.all([
      allPages<any>('/posts', 'posts', { dateFrom: from, dateTo: to, sortBy: 'scheduled-asc' }),
      profileRef.current ? freeSlots(profileRef.current) : Promise.resolve([] as string[]),
    ]);
    const taken = new Set(posts.map((p) => p.scheduledFor && Date.parse(p.scheduledFor)));
    const events: EventInput[] = posts
      .filter((p) => p.scheduledFor)
      .map((p) => ({
        id: p._id,
        start: p.scheduledFor,
        allDay: false,
        title: p.title || p.content || '(no text)',
        classNames: ['post', `st-${p.status}`],
        startEditable: !readOnly && EDITABLE.has(p.status),
        extendedProps: { post: p },
      }));
    for (const s of slots) {
      const t = Date.parse(s);
      if (taken.has(t) || t < Date.parse(from) || t >= Date.parse(to)) continue;
      events.push({ id: 'slot-' + s, start: s, title: 'Free queue slot', classNames: ['free-slot'], editable: false, extendedProps: { slot: s } });
    }
    return { events, count: posts.length };
  };

  useEffect(() => {
    const view = query.get('view');
    const c = new Calendar(host.current!, {
      plugins: [dayGridPlugin, timeGridPlugin, listPlugin, interactionPlugin, luxonPlugin],
      initialView: view && VIEWS.has(view) ? view : 'dayGridMonth',
      initialDate: query.get('date') || undefined,
      timeZone: zone,
      height: 'auto',
      headerToolbar: { left: 'prev,next today', center: 'title', right: 'dayGridMonth,timeGridWeek,listWeek' },
      // Words rather than icon fonts: the icons are role=img without a text alternative.
      buttonIcons: false,
      buttonText: { month: 'Month', week: 'Week', list: 'List', today: 'Today', prev: '‹ Previous', next: 'Next ›' },
      // A day cell is named by its own content (day number and posts), not only by the date link.
      dayCellDidMount: (arg) => arg.el.removeAttribute('aria-labelledby'),
      // A number, not true: with height 'auto', true (fit the cell) makes cell height and event count chase each other.
      dayMaxEvents: 3,
      eventDisplay: 'block',
      editable: !readOnly,
      eventDurationEditable: false,
      nowIndicator: true,
      // FullCalendar renders with the same Preact as the app: the app's state changes from its callbacks
      // wait for the next task, so that they never run inside the calendar's own render.
      events: (info, success, failure) => {
        later(() => setLoading(true));
        loadEvents(info.startStr, info.endStr).then(
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
      eventContent: (arg) => {
        const post = arg.event.extendedProps.post;
        if (!post) return { domNodes: [Object.assign(document.createElement('span'), { className: 'entry slot', textContent: '+ Free queue slot' })] };
        return { domNodes: [entryNode(post)] };
      },
      eventDidMount: (arg) => {
        // Entries are links for the keyboard: Enter opens the post.
        arg.el.setAttribute('tabindex', '0');
        const post = arg.event.extendedProps.post;
        arg.el.setAttribute('aria-label', post ? `${post.status} post: ${post.title || post.content || 'no text'}` : 'Free queue slot: compose a post for it');
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
        else later(() => navigate(`compose?at=${encodeURIComponent(arg.event.extendedProps.slot)}`));
      },
      eventDrop: async (arg) => {
        const when = new Date(arg.event.startStr).toISOString();
        try {
          await api('PUT', `/posts/${arg.event.id}`, { body: { scheduledFor: when } });
          later(() => setError(null));
          c.refetchEvents();
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
    const timer = setInterval(() => document.visibilityState === 'visible' && c.refetchEvents(), 15_000);
    return () => {
      clearTimeout(first);
      clearInterval(timer);
      c.destroy();
    };
  }, []);

  useEffect(() => {
    cal.current?.setOption('timeZone', zone);
  }, [zone]);
  useEffect(() => {
    if (profileId) cal.current?.refetchEvents();
  }, [profileId]);

  return (
    <Page
      title="Calendar"
      actions={
        <>
          {profiles.data && profiles.data.length > 0 && <ProfilePicker profiles={profiles.data} value={profileId} onChange={setProfileId} id="cal-profile" />}
          <ZonePicker value={zone} onChange={setZone} id="cal-zone" />
          <button onClick={() => navigate('compose')} disabled={Boolean(readOnly)} title={readOnly ?? undefined}>
            New post
          </button>
        </>
      }
    >
      <ErrorBox error={error} />
      <p class="cal-status" role="status" aria-live="polite">
        {loading ? 'Loading posts…' : count === 0 ? 'No posts in this period. Free queue slots are shown as places to fill.' : `${count} post${count === 1 ? "" : "s"} in view`}
      </p>
      <div class="calendar" ref={host} />
      {openPost && (
        <PostPanel
          postId={openPost}
          zone={zone}
          onClose={() => setOpenPost(null)}
          onChanged={() => cal.current?.refetchEvents()}
        />
      )}
    </Page>
  );
}
