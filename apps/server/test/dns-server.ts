import dgram from 'node:dgram';
import fs from 'node:fs';
// dns2 ships no type declarations; only its packet codec is used here.
// @ts-expect-error -- untyped CommonJS module
import Packet from 'dns2/packet.js';

/** What a name answers: records, or a failure the resolver must report as "could not check". */
export interface DnsZoneEntry {
  TXT?: string[];
  CNAME?: string;
  /** servfail: answer SERVFAIL; timeout: never answer. */
  fail?: 'servfail' | 'timeout';
}

export interface DnsQuestion {
  name: string;
  type: number;
}
interface DnsPacket {
  header: { id: number; qr: number; rcode: number; ra: number; rd: number };
  questions: DnsQuestion[];
  answers: unknown[];
}
/** The answer being built for a question: its header and records, in the packet codec's shape. */
export type DnsResponse = DnsPacket & { toBuffer(): Buffer };
type PacketModule = ((request: DnsPacket) => DnsResponse) & {
  parse(data: Buffer): DnsPacket;
  TYPE: Record<string, number>;
  CLASS: Record<string, number>;
};

/** The packet codec's record types and classes (`dnsCodes.TYPE.A`, `dnsCodes.CLASS.IN`). */
export const dnsCodes = Packet as unknown as PacketModule;
const P = dnsCodes;

/**
 * A DNS server on a loopback UDP port: each question goes to `answer` with its name (lower-case, no trailing dot)
 * and a response to fill in (header and answers); `answer` returns false to leave the question unanswered (a timeout).
 */
export async function serveDns(
  answer: (question: DnsQuestion, name: string, response: DnsResponse) => boolean | void,
) {
  const socket = dgram.createSocket('udp4');
  socket.on('message', (data, rinfo) => {
    let request: DnsPacket;
    try {
      request = P.parse(data);
    } catch {
      return;
    }
    const question = request.questions[0];
    if (!question) return;
    const response = P(request);
    response.header.qr = 1;
    response.header.ra = 1;
    if (answer(question, question.name.toLowerCase().replace(/\.$/, ''), response) === false) return;
    socket.send(response.toBuffer(), rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    /** For DNS_SERVERS / the resolver: `127.0.0.1:port`. */
    server: `127.0.0.1:${socket.address().port}`,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

/** TXT values longer than 255 bytes go out as several character strings, as DNS requires. */
function chunks(value: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < value.length; i += 255) out.push(value.slice(i, i + 255));
  return out.length ? out : [''];
}

/** The zone in a JSON file, read afresh for each query; a missing or half-written file is an empty zone. */
function readZoneFile(file: string): Record<string, DnsZoneEntry> {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, DnsZoneEntry>;
  } catch {
    return {};
  }
}

/**
 * A real DNS server on a loopback UDP port, answering from `zone` (names lower-case, no trailing dot).
 * Tests change `zone` between checks. Unknown names answer NXDOMAIN. With `zoneFile`, answers come from
 * that JSON file instead, re-read on each query, so another process (a journey) can change them.
 */
export async function startDnsServer(
  zone: Record<string, DnsZoneEntry> = {},
  options: { zoneFile?: string } = {},
) {
  const dns = await serveDns((question, name, response) => {
    const entry = (options.zoneFile ? readZoneFile(options.zoneFile) : zone)[name];
    if (entry?.fail === 'timeout') return false;
    if (entry?.fail === 'servfail') {
      response.header.rcode = 2;
    } else if (!entry) {
      response.header.rcode = 3;
    } else if (question.type === P.TYPE.TXT) {
      for (const value of entry.TXT ?? []) {
        response.answers.push({
          name: question.name,
          type: P.TYPE.TXT,
          class: P.CLASS.IN,
          ttl: 60,
          data: chunks(value),
        });
      }
    } else if (question.type === P.TYPE.CNAME && entry.CNAME) {
      response.answers.push({
        name: question.name,
        type: P.TYPE.CNAME,
        class: P.CLASS.IN,
        ttl: 60,
        domain: entry.CNAME,
      });
    }
  });
  return { zone, ...dns };
}
