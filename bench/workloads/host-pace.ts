import crypto from 'node:crypto';
import net from 'node:net';

/**
 * The time this machine takes for a fixed piece of work, printed before and after each workload, so that figures
 * taken at different times can be compared: the same code has measured a quarter to twice as slow from one hour
 * to the next on a shared host. Two parts, as the workloads spend it: JavaScript and hashing on one core, and
 * small writes over a loopback TCP connection (each a system call that also runs the receiving side), which the
 * tracking endpoints and the SMTP sends are made of. More milliseconds is a slower host.
 */
export interface HostPace {
  cpuMs: number;
  loopbackMs: number;
}

function cpuWork(): number {
  const start = performance.now();
  let x = 0;
  for (let i = 0; i < 100_000_000; i++) x = (x * 31 + i) | 0;
  const block = Buffer.alloc(32 << 20, x & 0xff);
  for (let i = 0; i < 2; i++) crypto.createHash('sha256').update(block).digest();
  return performance.now() - start;
}

/** 20,000 round trips of 100 bytes between two ends of one loopback connection. */
async function loopbackWork(): Promise<number> {
  const rounds = 20_000;
  // No Nagle on either end: a small write waits for nothing but the kernel.
  const server = net.createServer({ noDelay: true }, (socket) =>
    socket.on('data', (chunk) => socket.write(chunk)),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const client = net.connect(port, '127.0.0.1');
  client.setNoDelay(true);
  await new Promise<void>((resolve) => client.once('connect', resolve));
  const message = Buffer.alloc(100, 1);
  const start = performance.now();
  await new Promise<void>((resolve) => {
    let left = rounds;
    let pending = 0;
    client.on('data', (chunk) => {
      pending -= chunk.length;
      if (pending > 0) return;
      if (--left === 0) resolve();
      else {
        pending = message.length;
        client.write(message);
      }
    });
    pending = message.length;
    client.write(message);
  });
  const ms = performance.now() - start;
  client.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return ms;
}

export async function hostPace(): Promise<HostPace> {
  return { cpuMs: Math.round(cpuWork()), loopbackMs: Math.round(await loopbackWork()) };
}

export function describePace(when: string, pace: HostPace): string {
  return `  host pace ${when}: ${pace.cpuMs} ms of fixed CPU work, ${pace.loopbackMs} ms of loopback round trips (more is a slower host)`;
}
