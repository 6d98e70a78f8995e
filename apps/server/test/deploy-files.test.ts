import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EnvSchema } from '../src/config-env.ts';
import { loadConfig } from '../src/config.ts';

/**
 * The container files (Dockerfile, docker-compose.yml, deploy/nginx.conf, .env.example) checked against the
 * server's configuration, since no container engine runs here: each setting compose gives Herald exists and is
 * documented, a production start accepts each Herald service's environment, the roles, the load balancer's
 * upstreams, the ports and health checks agree with the image (docs/scaling.md, "Running it with Docker Compose").
 */
const root = path.resolve(import.meta.dirname, '../../..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

/** Values for compose's required interpolations (`${VAR:?message}`), which an operator sets in `.env`. */
const placeholders: Record<string, string> = {
  POSTGRES_PASSWORD: 'postgres0password',
  CLICKHOUSE_PASSWORD: 'clickhouse0password',
  SESSION_SECRET: 's'.repeat(48),
  PUBLIC_URL: 'https://herald.example.com',
  SMTP_URL: 'smtps://user:password@smtp.example.com:465',
  MAIL_FROM: 'Herald <no-reply@example.com>',
};

// ---- Dockerfile ----

interface Instruction {
  keyword: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined and comments left out, split into its stages. */
function dockerStages(text: string): Instruction[][] {
  const lines = text.split('\n').filter((line) => !/^\s*#/.test(line));
  const instructions: Instruction[] = [];
  let pending = '';
  for (const line of lines) {
    pending += line.trimEnd();
    if (pending.endsWith('\\')) {
      pending = `${pending.slice(0, -1)} `;
      continue;
    }
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(pending);
    if (match) instructions.push({ keyword: match[1]!.toUpperCase(), args: match[2]!.trim() });
    pending = '';
  }
  const stages: Instruction[][] = [[]];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') stages.push([]);
    stages.at(-1)!.push(instruction);
  }
  return stages;
}

const stages = dockerStages(read('Dockerfile'));
const globalArgs = Object.fromEntries(
  stages[0]!.filter((i) => i.keyword === 'ARG').map((i) => i.args.split('=') as [string, string]),
);
const runtime = stages.at(-1)!;
const ofRuntime = (keyword: string) => runtime.filter((i) => i.keyword === keyword);
const execForm = (args: string): string[] => JSON.parse(args.slice(args.indexOf('['))) as string[];

/** ENV of the runtime stage (`KEY=value` pairs). */
const imageEnv: Record<string, string> = Object.fromEntries(
  ofRuntime('ENV').flatMap((i) =>
    [...i.args.matchAll(/([A-Z0-9_]+)=("[^"]*"|\S+)/g)].map((m) => [m[1]!, m[2]!.replace(/^"|"$/g, '')]),
  ),
);
const exposedPorts = ofRuntime('EXPOSE').flatMap((i) =>
  i.args.split(/\s+/).map((p) => Number(p.split('/')[0])),
);
const imageHealthcheck = execForm(ofRuntime('HEALTHCHECK').at(-1)?.args ?? '[]');
const healthPath = imageHealthcheck.find((arg) => arg.startsWith('/'));

// ---- docker-compose.yml ----

interface Service {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  env_file?: unknown;
  depends_on?: string[] | Record<string, { condition?: string }>;
  healthcheck?: { test?: string | string[] };
  volumes?: (string | { source?: string; target?: string })[];
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const services = Object.entries(compose.services);
const buildContext = (service: Service) =>
  typeof service.build === 'string' ? service.build : service.build?.context;
/** Herald's services: the ones built from this repository's Dockerfile. */
const herald = services.filter(([, service]) => buildContext(service) === '.');
const argsOf = (command: Service['command']) =>
  Array.isArray(command) ? command : (command ?? '').split(/\s+/).filter(Boolean);
const roleOf = (service: Service) =>
  argsOf(service.command)
    .find((arg) => arg.startsWith('--role='))
    ?.slice('--role='.length);
const api = herald.filter(([, service]) => roleOf(service) === 'api');
const workers = herald.filter(([, service]) => roleOf(service) === 'worker');

/** A service's `environment` as written (values before interpolation). */
function environmentOf(service: Service): Record<string, string> {
  const env = service.environment ?? {};
  if (Array.isArray(env))
    return Object.fromEntries(
      env.map((entry) => [entry.split('=')[0]!, entry.split('=').slice(1).join('=')]),
    );
  return Object.fromEntries(
    Object.entries(env).map(([key, value]) => [key, value == null ? '' : String(value)]),
  );
}

/**
 * Compose's interpolation with nothing set but the placeholders of the required variables: `${VAR:?msg}` takes its
 * placeholder, `${VAR:-default}` its default, a bare `${VAR}` or `$VAR` becomes empty (what compose gives an unset
 * variable), `$$` a `$`. Returns the names met, by kind.
 */
function interpolate(value: string) {
  const required: string[] = [];
  const optional: string[] = [];
  const text = value.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, braced?: string, operator?: string, operand?: string, bare?: string) => {
      if (whole === '$$') return '$';
      const name = (braced ?? bare)!;
      if (operator?.endsWith('?')) {
        required.push(name);
        expect(placeholders, `a placeholder for ${name} in this test`).toHaveProperty(name);
        return placeholders[name]!;
      }
      optional.push(name);
      return operator?.endsWith('-') ? (operand ?? '') : '';
    },
  );
  return { text, required, optional };
}

/** The environment a Herald service's process gets: the image's ENV, then the service's own, interpolated. */
function processEnv(service: Service): Record<string, string> {
  const own = Object.entries(environmentOf(service)).map(([key, value]) => [key, interpolate(value).text]);
  return { ...imageEnv, ...Object.fromEntries(own) };
}

/** The port and path of a healthcheck that calls deploy/healthcheck.mjs with a URL. */
function healthcheckTarget(service: Service) {
  const test = service.healthcheck?.test;
  const args = Array.isArray(test) ? test : (test ?? '').split(/\s+/);
  expect(args, 'the healthcheck runs the image’s deploy/healthcheck.mjs').toContain('deploy/healthcheck.mjs');
  const url = new URL(args.find((arg) => /^https?:\/\//.test(arg)) ?? 'invalid:');
  return { port: Number(url.port), path: url.pathname };
}

// ---- README and nginx ----

/** The names in the first column of the README's configuration table (the first table after its heading). */
function readmeSettings(): Set<string> {
  const lines = read('README.md').split('\n');
  const heading = lines.findIndex((line) => line.trim() === '## Configuration');
  const first = lines.findIndex((line, i) => i > heading && line.startsWith('|'));
  const names = new Set<string>();
  for (const line of lines.slice(first)) {
    if (!line.startsWith('|')) break;
    for (const match of (line.split('|')[1] ?? '').matchAll(/`([A-Z][A-Z0-9_]*)`/g)) names.add(match[1]!);
  }
  return names;
}

/** The `server host:port` lines of each `upstream` block, and the upstreams `proxy_pass` sends to. */
function nginxUpstreams(text: string) {
  const code = text.replace(/#.*$/gm, '');
  const upstreams = new Map<string, { host: string; port: number }[]>();
  for (const block of code.matchAll(/upstream\s+(\S+)\s*\{([^}]*)\}/g))
    upstreams.set(
      block[1]!,
      [...block[2]!.matchAll(/^\s*server\s+([^\s:;]+):(\d+)/gm)].map((m) => ({
        host: m[1]!,
        port: Number(m[2]),
      })),
    );
  const proxied = [...code.matchAll(/proxy_pass\s+https?:\/\/([^\s/;]+)/g)].map((m) => m[1]!);
  return { upstreams, proxied };
}

describe('the Dockerfile', () => {
  it('runs the built server as a user other than root, in production, from a node:20 image', () => {
    const user = ofRuntime('USER').at(-1)?.args;
    expect(user, 'the runtime stage sets USER').toBeDefined();
    expect(['root', 'root:root', '0', '0:0']).not.toContain(user);
    expect(imageEnv.NODE_ENV).toBe('production');
    const from = runtime[0]!.args
      .split(/\s+/)[0]!
      .replace(/^\$\{(\w+)\}$/, (_, name: string) => globalArgs[name]!);
    expect(from).toMatch(/^node:20\b/);
    expect(execForm(ofRuntime('ENTRYPOINT').at(-1)?.args ?? '[]')).toEqual([
      'node',
      'apps/server/dist/main.js',
    ]);
    expect(execForm(ofRuntime('CMD').at(-1)?.args ?? '[]')).toEqual(['--role=all']);
  });

  it('exposes the API port, checks /healthz, and puts the web app where the server looks for it', () => {
    expect(exposedPorts).toContain(EnvSchema.parse(imageEnv).PORT);
    expect(healthPath).toBe('/healthz');
    const copies = ofRuntime('COPY').map((i) => i.args);
    for (const script of imageHealthcheck.filter((arg) => arg.endsWith('.mjs'))) {
      expect(fs.existsSync(path.join(root, script)), script).toBe(true);
      expect(copies.some((args) => args.includes(script))).toBe(true);
    }
    // WEB_DIST_DIR unset: apps/server/dist/../../web/dist, the same folder as from the sources.
    expect(imageEnv.WEB_DIST_DIR).toBeUndefined();
    const webDist = path.relative(root, loadConfig({}).webDistDir);
    expect(copies).toContain(`--from=build /app/${webDist} ./${webDist}`);
    expect(copies).toContain('--from=build /app/apps/server/dist ./apps/server/dist');
  });

  it('copies every workspace’s manifest into each stage that runs npm ci', () => {
    const workspaces = (JSON.parse(read('package.json')) as { workspaces: string[] }).workspaces;
    const installing = stages.filter((stage) =>
      stage.some((i) => i.keyword === 'RUN' && /npm ci\b/.test(i.args)),
    );
    expect(installing.length).toBeGreaterThan(0);
    for (const stage of installing) {
      const copied = stage
        .filter((i) => i.keyword === 'COPY')
        .flatMap((i) => i.args.split(/\s+/).slice(0, -1));
      for (const file of ['package.json', 'package-lock.json', ...workspaces.map((w) => `${w}/package.json`)])
        expect(copied, `${file} copied in the stage ${stage[0]!.args}`).toContain(file);
    }
  });
});

describe('docker-compose.yml', () => {
  const schemaKeys = new Set(Object.keys(EnvSchema.shape));
  const documented = readmeSettings();

  it('runs two API processes and two workers of the image, and nothing else of it', () => {
    expect(api.map(([name]) => name)).toHaveLength(2);
    expect(workers.map(([name]) => name)).toHaveLength(2);
    expect(herald).toHaveLength(4);
  });

  it('gives Herald only settings that exist and that the README’s configuration table lists', () => {
    expect(documented.size).toBeGreaterThan(50);
    for (const name of Object.keys(imageEnv)) {
      expect(schemaKeys, `${name} (Dockerfile) in EnvSchema`).toContain(name);
      expect(documented, `${name} (Dockerfile) in the README`).toContain(name);
    }
    for (const [service, definition] of herald) {
      expect(
        definition.env_file,
        `${service}: settings are written in the file, not an env_file`,
      ).toBeUndefined();
      for (const name of Object.keys(environmentOf(definition))) {
        expect(schemaKeys, `${service}: ${name} in EnvSchema`).toContain(name);
        expect(documented, `${service}: ${name} in the README's configuration table`).toContain(name);
      }
    }
  });

  it('gives each Herald service an environment a production start accepts, the secrets from .env', () => {
    for (const [service, definition] of herald) {
      const env = processEnv(definition);
      const config = loadConfig(env);
      expect(config.env, service).toBe('production');
      expect(config.eventStore.kind, service).toBe('clickhouse');
      expect(config.metrics?.host, service).toBe('0.0.0.0');
      // The database and ClickHouse are services of this file.
      for (const url of [env.DATABASE_URL!, env.CLICKHOUSE_URL!])
        expect(compose.services, `${service}: ${url}`).toHaveProperty(new URL(url).hostname);
      // What production requires comes from .env, never written here.
      for (const name of ['SESSION_SECRET', 'SMTP_URL', 'PUBLIC_URL'])
        expect(interpolate(environmentOf(definition)[name]!).required, `${service}: ${name}`).toEqual([name]);
    }
  });

  it('lists in .env.example every variable it reads from the environment', () => {
    const example = read('.env.example');
    const listed = new Set([...example.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]!));
    const text = read('docker-compose.yml');
    const used = [...text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!);
    expect(used.length).toBeGreaterThan(0);
    for (const name of used) expect(listed, `${name} in .env.example`).toContain(name);
  });

  it('passes each process its role, and checks its health on a port the image exposes', () => {
    for (const [service, definition] of herald) {
      const config = loadConfig(processEnv(definition));
      const target = healthcheckTarget(definition);
      expect(target.path, service).toBe(healthPath);
      expect(exposedPorts, `${service}: port ${target.port} exposed`).toContain(target.port);
      // The API answers on its port; a worker has none and answers on the metrics port.
      expect(target.port, service).toBe(roleOf(definition) === 'api' ? config.port : config.metrics?.port);
      expect(exposedPorts, `${service}: metrics port exposed`).toContain(config.metrics?.port);
    }
  });

  it('starts Herald after its databases are healthy, and the load balancer after the API processes', () => {
    const waitsFor = (definition: Service, name: string) => {
      const dependsOn = definition.depends_on;
      expect(Array.isArray(dependsOn), 'depends_on with conditions').toBe(false);
      expect((dependsOn as Record<string, { condition?: string }>)?.[name]?.condition).toBe(
        'service_healthy',
      );
      expect(compose.services[name]?.healthcheck?.test, `${name} has a healthcheck`).toBeDefined();
    };
    for (const [, definition] of herald) {
      const env = processEnv(definition);
      waitsFor(definition, new URL(env.DATABASE_URL!).hostname);
      waitsFor(definition, new URL(env.CLICKHOUSE_URL!).hostname);
    }
    const lb = services.find(([, s]) => s.volumes?.some((v) => String(v).startsWith('./deploy/nginx.conf:')));
    expect(lb, 'a service mounts deploy/nginx.conf').toBeDefined();
    for (const [name] of api) waitsFor(lb![1], name);
  });

  it('has the load balancer send to exactly the API services, on their port', () => {
    const { upstreams, proxied } = nginxUpstreams(read('deploy/nginx.conf'));
    expect(upstreams.size).toBe(1);
    const [name, servers] = [...upstreams][0]!;
    expect(proxied).toEqual([name]);
    expect(servers.map((s) => s.host).sort()).toEqual(api.map(([service]) => service).sort());
    for (const [service, definition] of api)
      expect(servers.find((s) => s.host === service)?.port).toBe(loadConfig(processEnv(definition)).port);
  });

  it('shares uploaded files between every Herald process, and gives each worker a data folder of its own', () => {
    const mounts = (definition: Service) =>
      new Map(
        (definition.volumes ?? []).map((v) => {
          const [source, target] = String(v).split(':');
          return [target!, source!];
        }),
      );
    const files = new Set(herald.map(([, d]) => mounts(d).get(`${loadConfig(processEnv(d)).dataDir}/files`)));
    expect([...files]).toHaveLength(1);
    expect([...files][0], 'one volume for DATA_DIR/files').toBeDefined();
    // The send journals live in DATA_DIR: one volume each, never shared.
    const journals = workers.map(([, d]) => mounts(d).get(loadConfig(processEnv(d)).dataDir));
    expect(journals.every(Boolean)).toBe(true);
    expect(new Set(journals).size).toBe(workers.length);
  });
});
