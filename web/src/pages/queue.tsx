import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { ProfilePicker, ZonePicker } from '../components';
import { BROWSER_ZONE, loadProfiles, useChosenProfile } from '../data';
import { cannotWrite, Empty, ErrorBox, formatDate, Loading, Page, useLoad, useSession } from '../ui';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export function QueuePage() {
  const session = useSession();
  const readOnly = cannotWrite(session);
  const profiles = useLoad(loadProfiles, []);
  const [profileId, setProfileId] = useChosenProfile(profiles.data);
  const queue = useLoad(
    () => (profileId ? api('GET', '/queue/slots', { query: { profileId } }) : Promise.resolve(null)),
    [profileId],
  );
  const [slots, setSlots] = useState<{ dayOfWeek: number; time: string }[]>([]);
  const [zone, setZone] = useState(BROWSER_ZONE);
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    const s = queue.data?.schedule;
    setSlots(s?.slots ?? []);
    if (s?.timezone) setZone(s.timezone);
  }, [queue.data]);

  const save = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    try {
      if (queue.data?.exists)
        await api('PUT', '/queue/slots', {
          body: { profileId, queueId: queue.data.schedule._id, timezone: zone, slots },
        });
      else await api('POST', '/queue/slots', { body: { profileId, name: 'Default queue', timezone: zone, slots } });
      setError(null);
      setSaved(true);
      queue.reload();
    } catch (err) {
      setError(err);
    }
  };

  if (profiles.loading && !profiles.data) return <Loading what="Loading profiles" />;
  if (!profiles.data?.length)
    return (
      <Page title="Queue">
        <Empty>No profile yet: create one on the Accounts page.</Empty>
      </Page>
    );

  return (
    <Page
      title="Queue"
      actions={<ProfilePicker profiles={profiles.data} value={profileId} onChange={setProfileId} id="queue-profile" />}
    >
      <ErrorBox error={error ?? queue.error} />
      {queue.loading && !queue.data ? (
        <Loading what="Loading the queue" />
      ) : (
        <form onSubmit={save} class="queue">
          <fieldset disabled={Boolean(readOnly)}>
            <legend>Weekly slots {queue.data?.exists ? '' : '(no queue yet)'}</legend>
            <ZonePicker value={zone} onChange={setZone} id="queue-zone" label="Queue time zone" />
            {slots.length === 0 && <Empty>No slot yet. Add the times posts should go out each week.</Empty>}
            <ul class="slots">
              {slots.map((s, i) => (
                <li class="row">
                  <label for={`day-${i}`} class="sr-only">
                    Day of slot {i + 1}
                  </label>
                  <select
                    id={`day-${i}`}
                    value={s.dayOfWeek}
                    onChange={(e) =>
                      setSlots(
                        slots.map((x, j) =>
                          j === i ? { ...x, dayOfWeek: Number((e.target as HTMLSelectElement).value) } : x,
                        ),
                      )
                    }
                  >
                    {DAYS.map((d, n) => (
                      <option value={n}>{d}</option>
                    ))}
                  </select>
                  <label for={`time-${i}`} class="sr-only">
                    Time of slot {i + 1}
                  </label>
                  <input
                    id={`time-${i}`}
                    type="time"
                    required
                    value={s.time}
                    onInput={(e) =>
                      setSlots(
                        slots.map((x, j) => (j === i ? { ...x, time: (e.target as HTMLInputElement).value } : x)),
                      )
                    }
                  />
                  <button type="button" class="link" onClick={() => setSlots(slots.filter((_, j) => j !== i))}>
                    Remove slot {i + 1}
                  </button>
                </li>
              ))}
            </ul>
            <div class="row">
              <button type="button" onClick={() => setSlots([...slots, { dayOfWeek: 1, time: '09:00' }])}>
                Add a slot
              </button>
              <button type="submit" title={readOnly ?? undefined}>
                Save the queue
              </button>
              {saved && <span role="status">Saved.</span>}
            </div>
          </fieldset>
          {queue.data?.nextSlots?.length > 0 && (
            <>
              <h2>Next free slots</h2>
              <ul>
                {queue.data.nextSlots.slice(0, 10).map((s: string) => (
                  <li>{formatDate(s, zone)}</li>
                ))}
              </ul>
            </>
          )}
        </form>
      )}
    </Page>
  );
}
