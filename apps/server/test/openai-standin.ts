import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A local OpenAI-compatible chat-completions server for tests and journeys: POST /chat/completions answers in the
 * real response shape (id, object, created, model, choices, usage), writing from the brief it was sent.
 * Modes: ok; slow (answers only after `slowMs`); garbage (200 with text that is not JSON); error500 (an
 * OpenAI-shaped server error); refuse (a clean 401 with the provider's message); empty (a reply with no text);
 * reasoning (refuses max_tokens and temperature as OpenAI's reasoning models do, and takes max_completion_tokens).
 * A prompt containing `[standin:<mode>]` is answered in that mode, so a journey in another process can choose it.
 */
export type StandinMode = 'ok' | 'slow' | 'garbage' | 'error500' | 'refuse' | 'empty' | 'reasoning';

export interface StandinRequest {
  authorization: string | undefined;
  body: {
    model?: string;
    messages?: { role: string; content: string }[];
    max_tokens?: number;
    max_completion_tokens?: number;
    temperature?: number;
  };
}

export interface OpenAiStandin {
  /** The base URL to give as AI_BASE_URL (ends in /v1). */
  baseUrl: string;
  mode: StandinMode;
  slowMs: number;
  /** Every chat-completions request received, oldest first. */
  requests: StandinRequest[];
  close(): Promise<void>;
}

/** Start the stand-in on 127.0.0.1 with a free port. */
export async function startOpenAiStandin(): Promise<OpenAiStandin> {
  const sockets = new Set<Socket>();
  const standin: OpenAiStandin = {
    baseUrl: '',
    mode: 'ok',
    slowMs: 60_000,
    requests: [],
    close: async () => undefined,
  };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
        sendJson(response, 404, {
          error: { message: `Unknown path ${request.url}`, type: 'invalid_request_error' },
        });
        return;
      }
      let body: StandinRequest['body'];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as StandinRequest['body'];
      } catch {
        sendJson(response, 400, {
          error: { message: 'The body is not JSON.', type: 'invalid_request_error' },
        });
        return;
      }
      standin.requests.push({ authorization: request.headers.authorization, body });
      answer(standin, body, response);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  standin.baseUrl = `http://127.0.0.1:${port}/v1`;
  standin.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return standin;
}

const modes: StandinMode[] = ['ok', 'slow', 'garbage', 'error500', 'refuse', 'empty', 'reasoning'];

function answer(standin: OpenAiStandin, body: StandinRequest['body'], response: http.ServerResponse): void {
  const asked = /\[standin:([a-z0-9]+)\]/.exec(
    (body.messages ?? []).map((m) => m.content).join('\n'),
  )?.[1] as StandinMode | undefined;
  const mode = asked && modes.includes(asked) ? asked : standin.mode;
  switch (mode) {
    case 'garbage':
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end('<html>upstream proxy says hello</html>');
      return;
    case 'error500':
      sendJson(response, 500, {
        error: { message: 'The server had an error while processing your request.', type: 'server_error' },
      });
      return;
    case 'refuse':
      sendJson(response, 401, {
        error: {
          message: 'Incorrect API key provided.',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      });
      return;
    case 'slow': {
      const timer = setTimeout(() => sendJson(response, 200, completion(body, write(body))), standin.slowMs);
      response.on('close', () => clearTimeout(timer));
      return;
    }
    case 'reasoning': {
      const unsupported =
        body.max_tokens !== undefined
          ? 'max_tokens'
          : body.temperature !== undefined
            ? 'temperature'
            : undefined;
      if (unsupported) {
        sendJson(response, 400, {
          error: {
            message: `Unsupported parameter: '${unsupported}' is not supported with this model.`,
            type: 'invalid_request_error',
            param: unsupported,
            code: 'unsupported_parameter',
          },
        });
      } else {
        sendJson(response, 200, completion(body, write(body)));
      }
      return;
    }
    case 'empty':
      sendJson(response, 200, completion(body, ''));
      return;
    case 'ok':
      sendJson(response, 200, completion(body, write(body)));
  }
}

function sendJson(response: http.ServerResponse, status: number, value: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
}

function completion(body: StandinRequest['body'], content: string) {
  const promptText = (body.messages ?? []).map((m) => m.content).join('\n');
  const promptTokens = Math.ceil(promptText.length / 4);
  const completionTokens = Math.ceil(content.length / 4);
  return {
    id: `chatcmpl-standin-${Date.now()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body.model ?? 'standin',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  };
}

/** Write from the brief in the prompt, in the form the prompt asks for. */
function write(body: StandinRequest['body']): string {
  const prompt = body.messages?.find((m) => m.role === 'user')?.content ?? '';
  const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(prompt)?.[1]?.trim() ?? '';
  const company = field('Company');
  const tone = field('Tone');
  const about = field('What the email is about');
  if (/subject lines/i.test(prompt)) {
    return [
      `1. ${about}`,
      `2. "${company}: ${about}"`,
      `- Don't miss it: ${about}`,
      `News from ${company}`,
      `A ${tone} note: ${about}`,
    ].join('\n');
  }
  if (/outline/i.test(prompt)) {
    return [
      `- Open with a ${tone} hello from ${company}`,
      `- Explain: ${about}`,
      '- Say why it matters to the reader',
      '- Call to action',
      `- Sign off as ${company}`,
    ].join('\n');
  }
  return [
    'Hi there,',
    `We have news at ${company}: ${about}.`,
    `We wrote this in a ${tone} voice because that is how we like to talk to you.`,
    `Thanks for reading,\n${company}`,
  ].join('\n\n');
}
