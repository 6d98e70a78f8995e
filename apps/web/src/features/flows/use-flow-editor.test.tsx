// @vitest-environment jsdom
import { encodeInputFields, flowMessages, type Flow, type Step } from '@herald/contracts';
import { act, cleanup, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { notifyError } from '../../lib/notify.ts';
import { stubApi, testQueryClient, withQueryClient, type ApiAnswer, type ApiCall } from '../../test/api.tsx';
import { confirmActiveEdit } from './confirm-active-edit.tsx';
import { savedFlow, savedLink, savedStep, testFlowId, threeStepFlow } from './flow-editor.fixtures.ts';
import { flowCountsKey, flowKey, flowListKey } from './flows.api.ts';
import { moveSaveDelayMs, useFlowEditor, type NewStep } from './use-flow-editor.ts';

vi.mock('./confirm-active-edit.tsx', () => ({ confirmActiveEdit: vi.fn() }));
vi.mock('../../lib/notify.ts', () => ({ notifyError: vi.fn(), notifySuccess: vi.fn() }));

const tagAction: NewStep = {
  type: 'action',
  serviceId: 'herald',
  operationKey: '/add-tag',
  mustConfig: true,
};
const vip = encodeInputFields({ tag: 'vip' });
const refused = (message: string): ApiAnswer => ({
  status: 422,
  body: { statusCode: 422, name: 'Unprocessable', message },
});

/** What the editor sends, as far as the stand-in server reads it. */
type Sent = Partial<Pick<Step, 'inputFields' | 'coordinates'>> & {
  tempId: string;
  source: number;
  target: number;
  condition: string | null;
};

/** The server as the editor sees it: new steps get id 40, new links id 50; a call waits for `hold` when given. */
function server(hold?: Promise<void>) {
  return async ({ method, path, body }: ApiCall): Promise<ApiAnswer> => {
    await hold;
    const sent = body as Sent;
    if (method === 'POST' && path === '/steps/')
      return {
        body: {
          step: savedStep(40, { inputFields: sent.inputFields, coordinates: sent.coordinates }),
          tempId: sent.tempId,
        },
      };
    if (method === 'PATCH')
      return {
        body: {
          step: savedStep(Number(path.split('/')[2]), {
            inputFields: sent.inputFields ?? {},
            mustConfig: false,
          }),
        },
      };
    if (method === 'POST' && path === '/links/')
      return { body: { link: savedLink(50, sent.source, sent.target, sent.condition) } };
    return { status: 204 };
  };
}

function mount(flow: Flow = threeStepFlow()) {
  const client = testQueryClient();
  const invalidate = vi.spyOn(client, 'invalidateQueries');
  const hook = renderHook(({ flow }) => useFlowEditor(testFlowId, flow), {
    initialProps: { flow },
    wrapper: withQueryClient(client),
  });
  const editor = () => hook.result.current;
  const keys = () => editor().state?.steps.map((step) => step.key);
  /** Waits until every save so far has ended. */
  const settle = () => act(() => editor().flush());
  return { ...hook, editor, keys, settle, invalidate };
}

const active = (): Flow => ({ ...threeStepFlow(), status: 'active' });

/** A promise the test resolves when it wants the server to answer; `answering` answers each call with `answer` then. */
function held() {
  let open = () => undefined as void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  const answering = (answer: ApiAnswer) => async () => {
    await promise;
    return answer;
  };
  return { promise, open, answering };
}

beforeEach(() => {
  vi.mocked(confirmActiveEdit).mockResolvedValue(true);
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  vi.clearAllMocks();
  vi.useRealTimers();
});

describe('useFlowEditor', () => {
  it("shows the server's flow, and takes the server's next copy when nothing is on its way", async () => {
    const calls = stubApi(server());
    const { editor, keys, rerender, settle } = mount();
    expect(keys()).toEqual(['1', '2', '3']);
    expect(editor().pending).toBe(0);
    rerender({ flow: savedFlow([savedStep(1), savedStep(9)]) });
    expect(keys()).toEqual(['1', '9']);
    await settle();
    expect(calls).toEqual([]);
  });

  it("adds a step at once under a temporary key, then under the server's id, and reloads the flow once all is saved", async () => {
    const answer = held();
    const calls = stubApi(server(answer.promise));
    const { editor, keys, settle, invalidate } = mount();
    let key: string | null = null;
    await act(async () => {
      key = await editor().addStep(tagAction, { x: 10, y: 500 });
    });
    expect(key).toMatch(/^new-step-/);
    expect(keys()).toEqual(['1', '2', '3', key]);
    expect(editor().pending).toBe(1);
    expect(invalidate).not.toHaveBeenCalled();
    answer.open();
    await settle();
    expect(calls).toEqual([
      {
        method: 'POST',
        path: '/steps/',
        body: {
          flowId: testFlowId,
          tempId: key,
          serviceId: 'herald',
          operationKey: '/add-tag',
          inputFields: {},
          coordinates: { x: 10, y: 500 },
        },
      },
    ]);
    expect(keys()).toEqual(['1', '2', '3', '40']);
    expect(editor().renamed).toEqual({ from: key, to: '40' });
    expect(editor().pending).toBe(0);
    expect(invalidate.mock.calls.map(([filters]) => filters?.queryKey)).toEqual([
      flowKey(testFlowId),
      flowCountsKey(testFlowId),
      flowListKey,
    ]);
  });

  it('keeps the server copy out while a save is on its way', async () => {
    const answer = held();
    stubApi(server(answer.promise));
    const { editor, keys, rerender, settle } = mount();
    await act(() => editor().addStep(tagAction, { x: 0, y: 0 }));
    rerender({ flow: savedFlow([savedStep(1)]) });
    expect(keys()).toHaveLength(4);
    answer.open();
    await settle();
    expect(keys()).toEqual(['1', '2', '3', '40']);
  });

  it('takes a step away again when the server refuses it, and says why', async () => {
    stubApi(async (call) =>
      call.method === 'POST' ? refused('A flow can have at most 200 steps.') : { status: 204 },
    );
    const { editor, keys, settle } = mount();
    await act(() => editor().addStep(tagAction, { x: 0, y: 0 }));
    await settle();
    expect(keys()).toEqual(['1', '2', '3']);
    expect(vi.mocked(notifyError)).toHaveBeenCalledWith(
      expect.objectContaining({ message: 'A flow can have at most 200 steps.' }),
      flowMessages.saveError,
    );
  });

  it('saves settings of a step still being created once the server has given it its id', async () => {
    const answer = held();
    const calls = stubApi(server(answer.promise));
    const { editor, settle } = mount();
    let key = '';
    await act(async () => {
      key = (await editor().addStep(tagAction, { x: 0, y: 0 }))!;
    });
    const onStart = vi.fn();
    let saving: Promise<boolean> = Promise.resolve(false);
    act(() => {
      saving = editor().saveStepSettings(key, vip, onStart);
    });
    expect(calls.map((call) => call.path)).toEqual(['/steps/']);
    await act(async () => {
      answer.open();
      expect(await saving).toBe(true);
    });
    await settle();
    expect(onStart).toHaveBeenCalledTimes(1);
    expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual(['POST /steps/', 'PATCH /steps/40']);
    expect(calls[1]!.body).toEqual({ inputFields: vip });
    expect(editor().state?.steps[3]).toMatchObject({ key: '40', inputFields: vip, mustConfig: false });
  });

  it('shows a move at once and saves it once, the given pause after the last move', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const calls = stubApi(server());
    const { editor, settle } = mount(active());
    act(() => editor().moveStep('3', { x: 10.4, y: 20.6 }));
    expect(editor().state?.steps[2]!.coordinates).toEqual({ x: 10, y: 21 });
    expect(editor().pending).toBe(1);
    act(() => editor().moveStep('3', { x: 30, y: 40 }));
    act(() => vi.advanceTimersByTime(moveSaveDelayMs - 1));
    expect(calls).toEqual([]);
    act(() => vi.advanceTimersByTime(1));
    await settle();
    expect(calls).toEqual([{ method: 'PATCH', path: '/steps/3', body: { coordinates: { x: 30, y: 40 } } }]);
    expect(editor().pending).toBe(0);
    expect(confirmActiveEdit).not.toHaveBeenCalled();
  });

  it('sends waiting moves at once on flush, and when the page is left', async () => {
    const calls = stubApi(server());
    const { editor, settle, unmount } = mount();
    act(() => editor().moveStep('2', { x: 1, y: 2 }));
    await settle();
    expect(calls.map((call) => [call.path, call.body])).toEqual([
      ['/steps/2', { coordinates: { x: 1, y: 2 } }],
    ]);
    act(() => editor().moveStep('3', { x: 5, y: 6 }));
    unmount();
    await vi.waitFor(() => expect(calls.map((call) => call.path)).toEqual(['/steps/2', '/steps/3']), {
      timeout: 5000,
    });
  });

  it('deletes a step with its links at once, then on the server', async () => {
    const answer = held();
    const calls = stubApi(answer.answering({ status: 204 }));
    const { editor, keys, settle } = mount();
    await act(async () => {
      expect(await editor().deleteStep('2')).toBe(true);
    });
    expect(keys()).toEqual(['1', '3']);
    expect(editor().state?.links).toEqual([]);
    answer.open();
    await settle();
    expect(calls).toEqual([{ method: 'DELETE', path: '/steps/2', body: undefined }]);
  });

  it('duplicates a step 20 px right and down, with its settings', async () => {
    const flow = threeStepFlow();
    flow.steps['3'] = savedStep(3, { inputFields: vip, coordinates: { x: 100, y: 340 } });
    const calls = stubApi(server());
    const { editor, settle } = mount(flow);
    await act(() => editor().duplicateStep('3'));
    await settle();
    expect(calls[0]!.body).toMatchObject({
      operationKey: '/add-tag',
      inputFields: vip,
      coordinates: { x: 120, y: 360 },
    });
  });
});

describe('useFlowEditor on an active flow', () => {
  it('drops the first change when the user cancels the question', async () => {
    vi.mocked(confirmActiveEdit).mockResolvedValue(false);
    const calls = stubApi(server());
    const { editor, keys, settle } = mount(active());
    const onStart = vi.fn();
    await act(async () => {
      expect(await editor().saveStepSettings('3', vip, onStart)).toBe(false);
      expect(await editor().deleteStep('3')).toBe(false);
      expect(await editor().addStep(tagAction, { x: 0, y: 0 })).toBeNull();
    });
    await settle();
    expect(onStart).not.toHaveBeenCalled();
    expect(keys()).toEqual(['1', '2', '3']);
    expect(editor().state?.steps[2]!.inputFields).toEqual({});
    expect(calls).toEqual([]);
  });

  it('asks once, then says each change was confirmed, until the confirmation is reset', async () => {
    const calls = stubApi(server());
    const { editor, settle } = mount(active());
    await act(async () => {
      await editor().saveStepSettings('3', vip, () => undefined);
      await editor().deleteStep('2');
    });
    await settle();
    expect(confirmActiveEdit).toHaveBeenCalledTimes(1);
    expect(calls.map((call) => [call.method, call.path, call.body])).toEqual([
      ['PATCH', '/steps/3', { inputFields: vip, confirmActiveEdit: true }],
      ['DELETE', '/steps/2?confirmActiveEdit=true', undefined],
    ]);
    act(() => editor().resetConfirmation());
    await act(() => editor().deleteStep('1'));
    expect(confirmActiveEdit).toHaveBeenCalledTimes(2);
  });
});

describe('useFlowEditor links', () => {
  it('adds a link between two steps once, under the id the server gives it', async () => {
    const calls = stubApi(server());
    const { editor, settle } = mount();
    await act(async () => {
      await editor().addLink('1', '2', null);
      await editor().addLink('2', '1', 'no');
    });
    await settle();
    expect(calls).toEqual([
      { method: 'POST', path: '/links/', body: { source: 2, target: 1, condition: 'no' } },
    ]);
    expect(editor().state?.links[2]).toEqual({
      key: 'link-50',
      id: 50,
      source: '2',
      target: '1',
      condition: 'no',
    });
  });

  it('takes a refused link away again and says why', async () => {
    const answer = held();
    stubApi(answer.answering(refused('This branch already has a link.')));
    const { editor, settle } = mount();
    await act(() => editor().addLink('2', '1', 'yes'));
    expect(editor().state?.links).toHaveLength(3);
    answer.open();
    await settle();
    expect(editor().state?.links.map((link) => link.key)).toEqual(['link-11', 'link-12']);
    expect(notifyError).toHaveBeenCalledWith(
      expect.objectContaining({ message: 'This branch already has a link.' }),
      flowMessages.linkCreateError,
    );
  });

  it('deletes a link at once, and puts it back when the server refuses', async () => {
    const answer = held();
    const calls = stubApi(answer.answering(refused('No.')));
    const { editor, settle } = mount();
    await act(() => editor().deleteLink('link-12'));
    expect(editor().state?.links.map((link) => link.key)).toEqual(['link-11']);
    answer.open();
    await settle();
    expect(calls.map((call) => `${call.method} ${call.path}`)).toEqual(['DELETE /links/12']);
    expect(editor().state?.links.map((link) => link.key)).toEqual(['link-11', 'link-12']);
    expect(notifyError).toHaveBeenCalledWith(expect.anything(), flowMessages.linkDeleteError);
  });
});
