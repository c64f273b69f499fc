/**
 * The part of newman's Node API the Threads collection run uses (newman 6 ships no types):
 * https://github.com/postmanlabs/newman#api-reference
 */
declare module 'newman' {
  import type { EventEmitter } from 'node:events';

  export interface NewmanRunOptions {
    collection: unknown;
    reporters?: string[];
    timeout?: number;
  }

  interface Newman {
    run(options: NewmanRunOptions, callback: (error: Error | null, summary: any) => void): EventEmitter;
  }

  const newman: Newman;
  export default newman;
}
