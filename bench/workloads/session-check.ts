import path from 'node:path';
import { loadConfig } from '../../apps/server/src/config.ts';
import { startServer } from '../../apps/server/src/app/server.ts';

/** Throughput of the authenticated session check (cookie -> session -> member) over real HTTP. */
export async function sessionCheck(): Promise<{ figure: number; unit: string }> {
  const config = loadConfig({
    ...process.env,
    PORT: process.env.PORT ?? '3950',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DATA_DIR: process.env.DATA_DIR ?? path.resolve(import.meta.dirname, '../../data'),
  });
  const server = await startServer(config, 'all', (m) => console.log(m));
  const base = `http://127.0.0.1:${config.port}`;
  try {
    const email = `bench-${Date.now()}@example.com`;
    const created = await fetch(`${base}/v1/accounts/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: config.publicUrl },
      body: JSON.stringify({ email }),
    });
    const cookie = created.headers.get('set-cookie')!.split(';')[0]!;
    const total = 20_000;
    const concurrency = 32;
    let done = 0;
    const check = async () => {
      const res = await fetch(`${base}/v1/heartbeat/authenticated`, { headers: { cookie } });
      if (res.status !== 200) throw new Error(`status ${res.status}`);
      await res.arrayBuffer();
    };
    for (let i = 0; i < 500; i += 1) await check(); // warm-up
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (done < total) {
          const n = ++done;
          await check();
          if (n % 5000 === 0) console.log(`  ${n}/${total} requests`);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return { figure: Math.round(total / seconds), unit: 'req/s' };
  } finally {
    await server.stop();
  }
}
