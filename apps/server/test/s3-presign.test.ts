import { describe, expect, it } from 'vitest';
import { presignS3Url } from '../src/lib/s3-presign.ts';
import { createS3Storage } from '../src/lib/storage.ts';

const target = {
  region: 'us-east-1',
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};

describe('S3 presigned URLs (Signature Version 4)', () => {
  it("reproduces AWS's published example of a presigned GET", () => {
    const url = presignS3Url({
      method: 'GET',
      url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
      target,
      expiresSeconds: 86400,
      now: new Date('2013-05-24T00:00:00Z'),
    });
    expect(new URL(url).searchParams.get('X-Amz-Signature')).toBe(
      'aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    );
    expect(url).toContain('X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request');
  });

  it('signs the content type of an upload and uses path-style object URLs', () => {
    const storage = createS3Storage({
      ...target,
      endpoint: 'http://127.0.0.1:9000/',
      bucket: 'herald',
      publicUrl: 'https://cdn.example.com/herald',
    });
    const upload = new URL(storage.createUploadUrl('logos/1-abc.png', 'image/png', 1024, 600));
    expect(upload.pathname).toBe('/herald/logos/1-abc.png');
    expect(upload.searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host');
    expect(upload.searchParams.get('X-Amz-Expires')).toBe('600');
    expect(storage.publicUrl('logos/1-abc.png')).toBe('https://cdn.example.com/herald/logos/1-abc.png');
    const other = new URL(storage.createUploadUrl('logos/1-abc.png', 'image/jpeg', 1024, 600));
    expect(other.searchParams.get('X-Amz-Signature')).not.toBe(upload.searchParams.get('X-Amz-Signature'));
  });
});
