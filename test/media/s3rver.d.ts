// s3rver ships no types; the little the S3 test uses.
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';
  export default class S3rver {
    constructor(options: Record<string, unknown>);
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
