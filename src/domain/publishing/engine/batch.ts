/**
 * A micro-batcher: calls made in the same turn of the event loop (up to `max`) are run as one batch, and
 * each caller gets its own answer. At most `parallel` batches run at once; the calls that come meanwhile
 * wait for the next batch. When a batch throws (its transaction rolled back, so it wrote nothing), or
 * names some of its items `ALONE`, those items run one by one through `one`, each with its own error.
 */
export const ALONE = Symbol('alone');

interface Waiting<I, O> {
  item: I;
  resolve(value: O): void;
  reject(error: unknown): void;
}

export function batcher<I, O>(
  many: (items: I[]) => Promise<Array<O | typeof ALONE>>,
  one: (item: I) => Promise<O>,
  opts: { max?: number; parallel?: number } = {},
): (item: I) => Promise<O> {
  const max = opts.max ?? 64;
  const parallel = opts.parallel ?? 4;
  let queue: Waiting<I, O>[] = [];
  let running = 0;
  let scheduled = false;

  const alone = (w: Waiting<I, O>) => one(w.item).then(w.resolve, w.reject);

  async function run(group: Waiting<I, O>[]): Promise<void> {
    let out: Array<O | typeof ALONE>;
    try {
      out = group.length === 1 ? [ALONE] : await many(group.map((w) => w.item));
    } catch {
      out = group.map(() => ALONE);
    }
    await Promise.all(group.map((w, i) => (out[i] === ALONE ? alone(w) : w.resolve(out[i] as O))));
  }

  function pump(): void {
    scheduled = false;
    while (queue.length > 0 && running < parallel) {
      const group = queue.slice(0, max);
      queue = queue.slice(group.length);
      running++;
      void run(group).finally(() => {
        running--;
        pump();
      });
    }
  }

  return (item: I) =>
    new Promise<O>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!scheduled && running < parallel) {
        scheduled = true;
        // The next turn of the event loop: the calls made by the same batch of I/O callbacks join.
        setImmediate(pump);
      }
    });
}

/**
 * One batcher per owner (the context) and key (a worker id: a batch holds the jobs of one worker), made
 * by `make` on first use and dropped with its owner.
 */
export function batchers<Owner extends object, I, O>(
  make: (owner: Owner) => (item: I) => Promise<O>,
): (owner: Owner, key: string) => (item: I) => Promise<O> {
  const made = new WeakMap<Owner, Map<string, (item: I) => Promise<O>>>();
  return (owner, key) => {
    let byKey = made.get(owner);
    if (!byKey) made.set(owner, (byKey = new Map()));
    let b = byKey.get(key);
    if (!b) byKey.set(key, (b = make(owner)));
    return b;
  };
}
