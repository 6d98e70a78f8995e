import { LinkResponse, StepResponse, flowMessages, type Flow, type InputFields } from '@herald/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api } from '../../lib/api.ts';
import { notifyError } from '../../lib/notify.ts';
import { confirmActiveEdit } from './confirm-active-edit.tsx';
import {
  appendLink,
  appendStep,
  dropLink,
  dropStep,
  duplicateOf,
  fromFlow,
  hasLink,
  linkDeletePath,
  nameLink,
  nameStep,
  newEditorStep,
  newStepBody,
  placeStep,
  replaceStep,
  roundPoint,
  setStepSettings,
  settingsBody,
  stepDeletePath,
  stepIdOf,
  stepKey,
  type EditorState,
  type NewStep,
  type Point,
} from './flow-editor-state.ts';
import { flowCountsKey, flowKey, flowListKey } from './flows.api.ts';

export type { EditorLink, EditorStep, NewStep } from './flow-editor-state.ts';

/** How long a moved step waits before its new place is saved (one save per drag, not per pixel). */
export const moveSaveDelayMs = 600;

let temporaryIds = 0;
const temporaryId = (prefix: string) =>
  `${prefix}-${Date.now().toString(36)}-${(temporaryIds++).toString(36)}`;

/**
 * The flow editor's own copy of steps and links, changed at once on screen and saved in order through one queue
 * (docs/flows.md): a new step gets a temporary id and then the server's, and a later change or delete of it
 * waits in the queue until it exists; a failed link save removes the link, a failed delete restores it. When the
 * queue is empty the server's flow is loaded again and becomes the copy (warnings, counts, set-up state).
 */
export function useFlowEditor(flowId: number, server: Flow | undefined) {
  const queryClient = useQueryClient();
  const [state, setState] = useState<EditorState | null>(null);
  const [pending, setPending] = useState(0);
  const pendingRef = useRef(0);
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const ids = useRef(new Map<string, number>());
  const moves = useRef(new Map<string, { timer: ReturnType<typeof setTimeout>; save: () => void }>());
  const isConfirmed = useRef(false);
  const status = useRef(server?.status);
  status.current = server?.status;

  useEffect(() => {
    isConfirmed.current = false;
  }, [flowId]);

  // The server's copy replaces ours whenever it changes and nothing of ours is still on its way.
  useEffect(() => {
    if (server && pendingRef.current === 0) setState(fromFlow(server));
  }, [server]);

  const changePending = useCallback(
    (by: number) => {
      pendingRef.current += by;
      setPending(pendingRef.current);
      if (pendingRef.current === 0) {
        void queryClient.invalidateQueries({ queryKey: flowKey(flowId) });
        void queryClient.invalidateQueries({ queryKey: flowCountsKey(flowId) });
        void queryClient.invalidateQueries({ queryKey: flowListKey });
      }
    },
    [flowId, queryClient],
  );

  /** Runs a save after every earlier one; the pending count covers it from now until it ends. */
  const enqueue = useCallback(
    (task: () => Promise<void>) => {
      changePending(1);
      const next = queue.current.then(task).catch(() => undefined);
      queue.current = next;
      void next.finally(() => changePending(-1));
      return next;
    },
    [changePending],
  );

  /** The server id of a step key, once the step exists. */
  const idOf = (key: string): number | null => stepIdOf(ids.current, key);

  /** Resolves true when the change may go ahead: the flow is off, or the user confirmed changing it while active. */
  const mayEdit = useCallback(async (): Promise<boolean> => {
    if (status.current !== 'active' || isConfirmed.current) return true;
    const answer = await confirmActiveEdit();
    if (answer) isConfirmed.current = true;
    return answer;
  }, []);

  const update = (change: (current: EditorState) => EditorState) =>
    setState((current) => (current ? change(current) : current));

  const addStep = useCallback(
    async (step: NewStep, coordinates: Point): Promise<string | null> => {
      if (!(await mayEdit())) return null;
      const key = temporaryId('new-step');
      update((s) => appendStep(s, newEditorStep(key, step, coordinates)));
      void enqueue(async () => {
        try {
          const answer = await api.post('/steps/', newStepBody(flowId, key, step, coordinates), {
            schema: StepResponse,
          });
          ids.current.set(key, answer.step.id);
          // The temporary id is swapped for the server's everywhere it is used.
          update((s) => nameStep(s, key, answer.step));
          setRenamed({ from: key, to: stepKey(answer.step.id) });
        } catch (error) {
          update((s) => dropStep(s, key));
          notifyError(error, flowMessages.saveError);
        }
      });
      return key;
    },
    [enqueue, flowId, mayEdit],
  );

  /** The last temporary key the server named, so a selection can follow it. */
  const [renamed, setRenamed] = useState<{ from: string; to: string } | null>(null);

  /**
   * Saves a step's settings; resolves true when the server took them. `onStart` is called once the save goes ahead
   * (after the question of an active flow, if asked), so the form shows it saving only while it is.
   */
  const saveStepSettings = useCallback(
    async (key: string, inputFields: InputFields, onStart: () => void): Promise<boolean> => {
      if (!(await mayEdit())) return false;
      onStart();
      update((s) => setStepSettings(s, key, inputFields));
      let isSaved = false;
      await enqueue(async () => {
        const id = idOf(key);
        if (id === null) return;
        try {
          const answer = await api.patch(`/steps/${id}`, settingsBody(inputFields, status.current), {
            schema: StepResponse,
          });
          update((s) => replaceStep(s, stepKey(id), answer.step));
          isSaved = true;
        } catch (error) {
          notifyError(error, flowMessages.saveError);
        }
      });
      return isSaved;
    },
    [enqueue, mayEdit],
  );

  /** A moved step: shown at once, saved once it has rested for a moment. Layout only, so no confirmation. */
  const moveStep = useCallback(
    (key: string, coordinates: Point) => {
      const rounded = roundPoint(coordinates);
      update((s) => placeStep(s, key, rounded));
      const earlier = moves.current.get(key);
      if (earlier) clearTimeout(earlier.timer);
      else changePending(1);
      const save = () => {
        moves.current.delete(key);
        void enqueue(async () => {
          const id = idOf(key);
          if (id === null) return;
          try {
            await api.patch(`/steps/${id}`, { coordinates: rounded }, { schema: StepResponse });
          } catch (error) {
            notifyError(error, flowMessages.saveError);
          }
        });
        changePending(-1);
      };
      moves.current.set(key, { timer: setTimeout(save, moveSaveDelayMs), save });
    },
    [changePending, enqueue],
  );

  const deleteStep = useCallback(
    async (key: string): Promise<boolean> => {
      if (!(await mayEdit())) return false;
      update((s) => dropStep(s, key));
      void enqueue(async () => {
        const id = idOf(key);
        if (id === null) return;
        try {
          await api.delete(stepDeletePath(id, status.current));
        } catch (error) {
          notifyError(error, flowMessages.saveError);
          // The server's copy comes back when the queue is empty, with the step still there.
        }
      });
      return true;
    },
    [enqueue, mayEdit],
  );

  const addLink = useCallback(
    async (source: string, target: string, condition: string | null) => {
      if (!state || hasLink(state, source, target)) return;
      if (!(await mayEdit())) return;
      const key = temporaryId('new-link');
      update((s) => appendLink(s, { key, id: null, source, target, condition }));
      void enqueue(async () => {
        const sourceId = idOf(source);
        const targetId = idOf(target);
        try {
          if (sourceId === null || targetId === null) throw new Error(flowMessages.linkCreateError);
          const answer = await api.post(
            '/links/',
            { source: sourceId, target: targetId, condition },
            { schema: LinkResponse },
          );
          update((s) => nameLink(s, key, answer.link.id));
        } catch (error) {
          update((s) => dropLink(s, key));
          notifyError(error, flowMessages.linkCreateError);
        }
      });
    },
    [enqueue, mayEdit, state],
  );

  const deleteLink = useCallback(
    async (key: string) => {
      const link = state?.links.find((one) => one.key === key);
      if (!link) return;
      if (!(await mayEdit())) return;
      update((s) => dropLink(s, key));
      void enqueue(async () => {
        try {
          const path = linkDeletePath(link, idOf);
          if (path !== null) await api.delete(path);
        } catch (error) {
          update((s) => appendLink(s, link));
          notifyError(error, flowMessages.linkDeleteError);
        }
      });
    },
    [enqueue, mayEdit, state],
  );

  /** A copy of a step without its id, counts and links, 20 px right and down (docs/flows.md). */
  const duplicateStep = useCallback(
    async (key: string) => {
      const step = state?.steps.find((one) => one.key === key);
      if (!step) return null;
      const copy = duplicateOf(step);
      return addStep(copy.step, copy.coordinates);
    },
    [addStep, state],
  );

  /** Saves waiting moves now and resolves when every save so far has ended (before switching the flow on or off). */
  const flush = useCallback(async () => {
    for (const move of [...moves.current.values()]) {
      clearTimeout(move.timer);
      move.save();
    }
    await queue.current;
  }, []);

  /** A new status resets the active-edit confirmation (docs/flows.md). */
  const resetConfirmation = useCallback(() => {
    isConfirmed.current = false;
  }, []);

  useEffect(
    () => () => {
      // Leaving the page saves moves still waiting for their pause.
      for (const move of moves.current.values()) {
        clearTimeout(move.timer);
        move.save();
      }
    },
    [],
  );

  return useMemo(
    () => ({
      state,
      pending,
      renamed,
      addStep,
      saveStepSettings,
      moveStep,
      deleteStep,
      duplicateStep,
      addLink,
      deleteLink,
      flush,
      resetConfirmation,
    }),
    [
      state,
      pending,
      renamed,
      addStep,
      saveStepSettings,
      moveStep,
      deleteStep,
      duplicateStep,
      addLink,
      deleteLink,
      flush,
      resetConfirmation,
    ],
  );
}

export type FlowEditor = ReturnType<typeof useFlowEditor>;
