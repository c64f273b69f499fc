import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { api } from '../api';
import { ProfileAndZone } from '../components';
import { BROWSER_ZONE, loadProfiles, platformLabel, useChosenProfile } from '../data';
import { Empty, ErrorBox, Loading, Page, useLoad } from '../ui';

/*
 * The analytics add-on: follower growth (GET /v1/accounts/follower-stats), the best time to post
 * (GET /v1/analytics/best-time) and one post's metrics over time (GET /v1/analytics/post-timeline).
 * Loaded on demand (its own chunk, with uPlot), so the first page does not carry it.
 */

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const COLORS = ['#2456c7', '#c2410c', '#15803d', '#7e22ce', '#be123c', '#0e7490'];

interface Series {
  label: string;
  points: [number, number][];
}

const DAY_S = 86_400;

/** The x axis's range, in seconds: the data's own, and a day either side of a single day. */
function timeRange(min: number, max: number): [number, number] {
  return min === max ? [min - DAY_S, max + DAY_S] : [min, max];
}

/** A line chart (uPlot) of time series; the figure says what it shows for screen readers. */
function LineChart({ series, label }: { series: Series[]; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current!;
    const xs = [...new Set(series.flatMap((s) => s.points.map(([t]) => t)))].sort((a, b) => a - b);
    const ys = series.map((s) => {
      const at = new Map(s.points);
      return xs.map((x) => at.get(x) ?? null);
    });
    const showRange = (u: uPlot) => {
      if (u.scales.x.min == null || u.scales.x.max == null) return;
      el.dataset.xFrom = new Date(u.scales.x.min * 1000).toISOString();
      el.dataset.xTo = new Date(u.scales.x.max * 1000).toISOString();
    };
    const chart = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height: 240,
        series: [
          {},
          ...series.map((s, i) => ({ label: s.label, stroke: COLORS[i % COLORS.length], width: 2, spanGaps: true })),
        ],
        // NOTE: the x range is the data's own. For a single instant uPlot's automatic range adds "a day"
        // as 86400 / ms units, which with times in seconds is 86,400,000 s: one day of follower counts
        // was drawn on an axis running over almost three years.
        scales: { x: { time: true, range: () => timeRange(xs[0]!, xs[xs.length - 1]!) } },
        // The drawn range, readable in the page (the axis itself is drawn on a canvas).
        hooks: { ready: [showRange], setScale: [(u, key) => key === 'x' && showRange(u)] },
        axes: [{}, {}],
      },
      [xs, ...ys] as uPlot.AlignedData,
      el,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(280, el.clientWidth), height: 240 }));
    resize.observe(el);
    return () => (resize.disconnect(), chart.destroy());
  }, [series]);
  return (
    <figure class="chart" role="img" aria-label={label}>
      <div ref={host} />
    </figure>
  );
}

export function AnalyticsPage() {
  const profiles = useLoad(loadProfiles, []);
  const [profileId, setProfileId] = useChosenProfile(profiles.data);
  const [zone, setZone] = useState(BROWSER_ZONE);
  return (
    <Page
      title="Analytics"
      actions={
        <ProfileAndZone
          id="an"
          profiles={profiles.data}
          profileId={profileId}
          onProfile={setProfileId}
          zone={zone}
          onZone={setZone}
        />
      }
    >
      <ErrorBox error={profiles.error} />
      {profileId && <Followers profileId={profileId} />}
      <BestTime zone={zone} profileId={profileId} />
      <PostTimeline profileId={profileId} />
    </Page>
  );
}

function Followers({ profileId }: { profileId: string }) {
  const stats = useLoad(() => api('GET', '/accounts/follower-stats', { query: { profileId } }), [profileId]);
  const accounts: any[] = stats.data?.accounts ?? [];
  const series: Series[] = accounts
    .map((a) => ({
      label: `${platformLabel(a.platform)} ${a.username ?? ''}`.trim(),
      points: (stats.data?.stats?.[a._id] ?? []).map(
        (p: any) => [Date.parse(p.date) / 1000, p.followers] as [number, number],
      ),
    }))
    .filter((s) => s.points.length);
  return (
    <section aria-labelledby="an-followers">
      <h2 id="an-followers">Follower growth</h2>
      <ErrorBox error={stats.error} />
      {stats.loading && !stats.data ? (
        <Loading what="Loading follower counts" />
      ) : !series.length ? (
        <Empty>No follower counts yet: they are read once a day for each connected account.</Empty>
      ) : (
        <>
          <LineChart
            series={series}
            label={`Followers per day of ${series.length} account${series.length > 1 ? 's' : ''}`}
          />
          <ul class="plain">
            {accounts.map((a) => (
              <li>
                {platformLabel(a.platform)} {a.username}: {a.currentFollowers ?? '–'} followers (
                {a.growth >= 0 ? '+' : ''}
                {a.growth}, {a.growthPercentage}%)
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function BestTime({ zone, profileId }: { zone: string; profileId: string }) {
  const best = useLoad(
    () => api('GET', '/analytics/best-time', { query: { timezone: zone, profileId: profileId || undefined } }),
    [zone, profileId],
  );
  const slots: any[] = best.data?.slots ?? [];
  const max = Math.max(0, ...slots.map((s) => s.avg_engagement));
  const at = new Map(slots.map((s) => [`${s.day_of_week}-${s.hour}`, s]));
  return (
    <section aria-labelledby="an-best">
      <h2 id="an-best">Best time to post</h2>
      <ErrorBox error={best.error} />
      {best.loading && !best.data ? (
        <Loading what="Loading the best times" />
      ) : !slots.length ? (
        <Empty>No published post has been measured yet.</Empty>
      ) : (
        <div
          class="table-wrap"
          tabIndex={0}
          role="region"
          aria-label="Average engagement by weekday and hour, scrolls sideways"
        >
          <table class="heatmap">
            <caption>Average engagement of the posts published in each hour ({best.data.timezone})</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {Array.from({ length: 24 }, (_, h) => (
                  <th scope="col">{h}</th>
                ))}
              </tr>
            </thead>
            <tbody>
              {DAYS.map((d, i) => (
                <tr>
                  <th scope="row">{d.slice(0, 3)}</th>
                  {Array.from({ length: 24 }, (_, h) => {
                    const s = at.get(`${i}-${h}`);
                    const level = s && max ? Math.ceil((s.avg_engagement / max) * 4) : 0;
                    return (
                      <td
                        class={`heat-${level}`}
                        title={
                          s
                            ? `${d} ${h}:00: ${s.avg_engagement} average engagement over ${s.post_count} posts`
                            : undefined
                        }
                      >
                        {s ? <span class="sr-only">{`${s.avg_engagement} over ${s.post_count} posts`}</span> : null}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

const METRICS = ['impressions', 'reach', 'likes', 'comments', 'shares', 'views'];

function PostTimeline({ profileId }: { profileId: string }) {
  const list = useLoad(
    () => api('GET', '/analytics', { query: { profileId: profileId || undefined, limit: 50, sortBy: 'date' } }),
    [profileId],
  );
  const posts: any[] = list.data?.posts ?? [];
  const [postId, setPostId] = useState('');
  const chosen = postId || posts[0]?.latePostId || '';
  const timeline = useLoad(
    () => (chosen ? api('GET', '/analytics/post-timeline', { query: { postId: chosen } }) : Promise.resolve(null)),
    [chosen],
  );
  const rows: any[] = timeline.data?.timeline ?? [];
  const series: Series[] = METRICS.map((m) => ({
    label: m,
    points: rows.map((r) => [Date.parse(r.date) / 1000, Number(r[m] ?? 0)] as [number, number]),
  })).filter((s) => s.points.some(([, v]) => v > 0));
  return (
    <section aria-labelledby="an-post">
      <h2 id="an-post">A post over time</h2>
      <ErrorBox error={list.error ?? timeline.error} />
      {list.loading && !list.data ? (
        <Loading what="Loading published posts" />
      ) : !posts.length ? (
        <Empty>No published post yet.</Empty>
      ) : (
        <>
          <label for="an-post-pick">Post</label>
          <select id="an-post-pick" value={chosen} onChange={(e) => setPostId((e.target as HTMLSelectElement).value)}>
            {posts.map((p) => (
              <option value={p.latePostId}>
                {platformLabel(p.platform)} · {(p.content ?? '').slice(0, 60) || p.latePostId}
              </option>
            ))}
          </select>
          {timeline.loading && !timeline.data ? (
            <Loading what="Loading the post's metrics" />
          ) : !series.length ? (
            <Empty>No metrics read for this post yet.</Empty>
          ) : (
            <LineChart
              series={series}
              label={`Metrics of the post per day: ${series.map((s) => s.label).join(', ')}`}
            />
          )}
        </>
      )}
    </section>
  );
}
