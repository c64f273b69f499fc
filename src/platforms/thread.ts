import {
  ThreadIncompleteError,
  toPlatformError,
  type PlatformIO,
  type PublishRequest,
  type ThreadItem,
  type ThreadProgress,
} from './types.js';

/**
 * Posts the replies of a thread whose root is out (`thread.root`), each to the previous post, after those
 * an earlier attempt posted (`thread.replies`, which this extends; `req.resume`). What went out is
 * recorded (PlatformIO.threadProgress) after the root of a new thread and after each reply, before the
 * next is sent, so a worker killed mid-thread leaves a record of all but the post in flight. A reply that
 * fails throws ThreadIncompleteError with that progress, never a plain failure: re-sending the target
 * would post the root again.
 */
export async function postReplies<R>(
  req: PublishRequest,
  io: PlatformIO,
  thread: { root: R; replies: R[]; progress(): ThreadProgress },
  reply: (item: ThreadItem, parent: R) => Promise<R>,
): Promise<void> {
  if (req.threadItems.length && !req.resume) await io.threadProgress?.(thread.progress());
  let parent = thread.replies.at(-1) ?? thread.root;
  for (const item of req.threadItems.slice(thread.replies.length)) {
    try {
      parent = await reply(item, parent);
    } catch (error) {
      throw new ThreadIncompleteError(thread.progress(), req.threadItems.length, toPlatformError(error));
    }
    thread.replies.push(parent);
    await io.threadProgress?.(thread.progress());
  }
}
