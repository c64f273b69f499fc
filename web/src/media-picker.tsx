import { useState } from 'preact/hooks';
import { api } from './api';
import { Empty, ErrorBox, Loading, useLoad } from './ui';
import './media-library.css';

/** One upload of the media library (GET /v1/media). */
export interface MediaItem {
  _id: string;
  url: string;
  thumbnailUrl: string | null;
  key: string;
  filename: string;
  type: 'image' | 'video' | 'document';
  contentType: string;
  size: number | null;
  width: number | null;
  height: number | null;
  createdAt: string;
}

export interface MediaPage {
  media: MediaItem[];
  nextCursor: string | null;
}

export function loadMedia(query: { type?: string; before?: string; limit?: number } = {}): Promise<MediaPage> {
  return api<MediaPage>('GET', '/media', { query });
}

/** The picture of an upload: the image itself, or a labelled placeholder (Herald makes no video frames). */
export function MediaThumb({ item }: { item: MediaItem }) {
  if (item.thumbnailUrl) return <img class="media-thumb" src={item.thumbnailUrl} alt={item.filename} loading="lazy" />;
  return (
    <span class="media-thumb placeholder" role="img" aria-label={`${item.type}: ${item.filename}`}>
      {item.type === 'video' ? '▶ video' : 'document'}
    </span>
  );
}

/**
 * Picks an earlier upload to reuse: a button that opens the library's images (and videos) as a list of
 * choices. `onPick` gets the chosen upload; its `url` goes in a post's mediaItems as it is.
 */
export function MediaPicker({
  onPick,
  label = 'Choose from library',
}: {
  onPick: (item: MediaItem) => void;
  label?: string;
}) {
  const [open, setOpen] = useState(false);
  return (
    <div>
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'Close library' : label}
      </button>
      {open && (
        <PickerList
          onPick={(item) => {
            setOpen(false);
            onPick(item);
          }}
        />
      )}
    </div>
  );
}

function PickerList({ onPick }: { onPick: (item: MediaItem) => void }) {
  const library = useLoad(() => loadMedia({ limit: 60 }), []);
  const items = (library.data?.media ?? []).filter((m) => m.type !== 'document');
  return (
    <section class="media-picker" aria-label="Media library">
      <ErrorBox error={library.error} />
      {library.loading && !library.data ? (
        <Loading what="Loading the library" />
      ) : items.length === 0 ? (
        <Empty>No uploads yet: files you upload in the composer appear here.</Empty>
      ) : (
        <ul class="media-grid">
          {items.map((m) => (
            <li key={m._id}>
              <button type="button" class="media-pick" aria-label={`Use ${m.filename}`} onClick={() => onPick(m)}>
                <MediaThumb item={m} />
              </button>
              <span class="name">{m.filename}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
