/** The part of mailauth the tests use (it ships no type declarations). */
declare module 'mailauth/lib/dkim/verify.js' {
  export function dkimVerify(
    message: Buffer,
    options?: { resolver?: (name: string, rr: string) => Promise<unknown> },
  ): Promise<{
    results: {
      status: { result: string; header?: { d?: string; s?: string } };
      signingDomain?: string;
      selector?: string;
      info?: string;
    }[];
  }>;
}
