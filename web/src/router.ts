import { useEffect, useState } from 'preact/hooks';

/** The app lives under /app/; pages are /app/<page>. History API navigation, no hash. */
export const BASE = '/app/';

function currentPage(): string {
  const rest = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '';
  return rest.split('/')[0] || 'calendar';
}

export function navigate(to: string): void {
  history.pushState(null, '', BASE + to);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function useRoute(): { page: string; query: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const on = () => setTick((t) => t + 1);
    addEventListener('popstate', on);
    return () => removeEventListener('popstate', on);
  }, []);
  return { page: currentPage(), query: new URLSearchParams(location.search) };
}
