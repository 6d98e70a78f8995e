import crypto from 'node:crypto';

/** Credentials and place of an S3-compatible bucket. */
export interface S3Target {
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

const encode = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const hmac = (key: crypto.BinaryLike, data: string) => crypto.createHmac('sha256', key).update(data).digest();
const sha256 = (data: string) => crypto.createHash('sha256').update(data).digest('hex');

/**
 * A query-string-signed URL (AWS Signature Version 4) for one request to an S3-compatible store:
 * whoever holds it may make exactly that request (method, object, signed headers) until it expires.
 */
export function presignS3Url(input: {
  method: 'GET' | 'PUT';
  url: URL;
  target: S3Target;
  expiresSeconds: number;
  now?: Date;
  /** Headers the request must carry with these exact values (e.g. content-type); host is always signed. */
  headers?: Record<string, string>;
}): string {
  const now = input.now ?? new Date();
  const amzDate = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const scope = `${day}/${input.target.region}/s3/aws4_request`;
  const headers: Record<string, string> = {
    host: input.url.host,
    ...Object.fromEntries(Object.entries(input.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v.trim()])),
  };
  const signedHeaders = Object.keys(headers).sort().join(';');
  const query: Record<string, string> = {
    'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
    'X-Amz-Credential': `${input.target.accessKeyId}/${scope}`,
    'X-Amz-Date': amzDate,
    'X-Amz-Expires': String(input.expiresSeconds),
    'X-Amz-SignedHeaders': signedHeaders,
  };
  const canonicalQuery = Object.keys(query)
    .sort()
    .map((k) => `${encode(k)}=${encode(query[k]!)}`)
    .join('&');
  const canonicalPath = input.url.pathname
    .split('/')
    .map((part) => encode(decodeURIComponent(part)))
    .join('/');
  const canonicalHeaders = Object.keys(headers)
    .sort()
    .map((k) => `${k}:${headers[k]}\n`)
    .join('');
  const canonicalRequest = [
    input.method,
    canonicalPath,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(
    hmac(hmac(hmac(`AWS4${input.target.secretAccessKey}`, day), input.target.region), 's3'),
    'aws4_request',
  );
  const signature = crypto.createHmac('sha256', key).update(stringToSign).digest('hex');
  return `${input.url.origin}${canonicalPath}?${canonicalQuery}&X-Amz-Signature=${signature}`;
}
