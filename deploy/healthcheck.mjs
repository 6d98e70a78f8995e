// The container's health check (the Dockerfile's HEALTHCHECK, docker-compose.yml's healthchecks), in Node because
// the slim image has no curl or wget. Exit 0 when Herald answers 2xx, 1 otherwise.
//
//   node deploy/healthcheck.mjs http://127.0.0.1:3000/healthz   one address
//   node deploy/healthcheck.mjs /healthz                         this path on the API port (PORT, 3000), then on
//                                                                the metrics port (METRICS_PORT) when it is set
//
// A worker (--role=worker) has no API port: it answers /healthz on the metrics port only.
const target = process.argv[2] ?? '/healthz';
const urls = /^https?:\/\//.test(target)
  ? [target]
  : [process.env.PORT || '3000', process.env.METRICS_PORT]
      .filter(Boolean)
      .map((port) => `http://127.0.0.1:${port}${target}`);

for (const url of urls) {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(4000) });
    if (response.ok) process.exit(0);
    console.error(`${url}: ${response.status}`);
  } catch (error) {
    console.error(`${url}: ${error?.cause?.code ?? error?.message ?? error}`);
  }
}
process.exit(1);
