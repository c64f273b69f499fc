import type { Profile } from './data';
import { BROWSER_ZONE, timeZones } from './data';

export function ProfilePicker({
  profiles,
  value,
  onChange,
  id = 'profile',
}: {
  profiles: Profile[];
  value: string;
  onChange: (id: string) => void;
  id?: string;
}) {
  return (
    <span class="inline-field">
      <label for={id}>Profile</label>
      <select id={id} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
        {profiles.map((p) => (
          <option value={p._id}>{p.name}</option>
        ))}
      </select>
    </span>
  );
}

export function ZonePicker({
  value,
  onChange,
  id = 'zone',
  label = 'Time zone',
}: {
  value: string;
  onChange: (z: string) => void;
  id?: string;
  label?: string;
}) {
  return (
    <span class="inline-field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
        <option value={BROWSER_ZONE}>Browser ({BROWSER_ZONE})</option>
        {timeZones()
          .filter((z) => z !== BROWSER_ZONE)
          .map((z) => (
            <option value={z}>{z}</option>
          ))}
      </select>
    </span>
  );
}

/**
 * A page's profile picker (when there is a profile to choose) and time zone picker, the actions of the
 * calendar and analytics pages; `id` prefixes the controls' ids (`<id>-profile`, `<id>-zone`).
 */
export function ProfileAndZone(props: {
  id: string;
  profiles?: Profile[];
  profileId: string;
  onProfile: (id: string) => void;
  zone: string;
  onZone: (z: string) => void;
}) {
  return (
    <>
      {props.profiles && props.profiles.length > 0 && (
        <ProfilePicker
          profiles={props.profiles}
          value={props.profileId}
          onChange={props.onProfile}
          id={`${props.id}-profile`}
        />
      )}
      <ZonePicker value={props.zone} onChange={props.onZone} id={`${props.id}-zone`} />
    </>
  );
}
