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

interface DnsQuestion { name: string; type: number }
interface DnsPacket { header: { id: number; qr: number; rcode: number; ra: number; rd: number }; questions: DnsQuestion[]; answers: unknown[] }
interface PacketModule {
  parse(data: Buffer): DnsPacket;
  TYPE: Record<string, number>;
  CLASS: Record<string, number>;
  new (request?: DnsPacket): DnsPacket & { toBuffer(): Buffer };
}

const P = Packet as unknown as PacketModule & ((request: DnsPacket) => DnsPacket & { toBuffer(): Buffer });

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
export async function startDnsServer(zone: Record<string, DnsZoneEntry> = {}, options: { zoneFile?: string } = {}) {
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
    const name = question.name.toLowerCase().replace(/\.$/, '');
    const entry = (options.zoneFile ? readZoneFile(options.zoneFile) : zone)[name];
    if (entry?.fail === 'timeout') return;
    const response = P(request);
    response.header.qr = 1;
    response.header.ra = 1;
    if (entry?.fail === 'servfail') {
      response.header.rcode = 2;
    } else if (!entry) {
      response.header.rcode = 3;
    } else if (question.type === P.TYPE.TXT) {
      for (const value of entry.TXT ?? []) {
        response.answers.push({ name: question.name, type: P.TYPE.TXT, class: P.CLASS.IN, ttl: 60, data: chunks(value) });
      }
    } else if (question.type === P.TYPE.CNAME && entry.CNAME) {
      response.answers.push({ name: question.name, type: P.TYPE.CNAME, class: P.CLASS.IN, ttl: 60, domain: entry.CNAME });
    }
    socket.send(response.toBuffer(), rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const port = socket.address().port;
  return {
    zone,
    /** For DNS_SERVERS / the resolver: `127.0.0.1:port`. */
    server: `127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
