import { LinkResponse, StepResponse, flowLimits, flowMessages, type Flow, type InputFields, type Step, type StepType } from '@herald/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { api } from '../../lib/api.ts';
import { notifyError } from '../../lib/notify.ts';
import { confirmActiveEdit } from './confirm-active-edit.tsx';
import { flowCountsKey, flowKey, flowListKey } from './flows.api.ts';

/** A step on the canvas: `key` is its node id, the server id as text once saved, a temporary id before. */
export interface EditorStep {
  key: string;
  id: number | null;
  type: StepType;
  serviceId: string;
  operationKey: string;
  inputFields: InputFields;
  outputFields: Record<string, unknown> | null;
  coordinates: { x: number; y: number };
  linkConditions: string[] | null;
  mustConfig: boolean;
  problem: string | null;
  peopleCount: number;
}

export interface EditorLink {
  key: string;
  id: number | null;
  source: string;
  target: string;
  condition: string | null;
}

interface EditorState {
  steps: EditorStep[];
  links: EditorLink[];
}

/** What a new step starts from: its catalogue entry's identity and, for a copy, the original's settings. */
export interface NewStep {
  type: StepType;
  serviceId: string;
  operationKey: string;
  mustConfig: boolean;
  inputFields?: InputFields;
}

/** How long a moved step waits before its new place is saved (one save per drag, not per pixel). */
export const moveSaveDelayMs = 600;

const stepKey = (id: number) => String(id);
const linkKey = (id: number) => `link-${id}`;

function fromStep(step: Step, key = stepKey(step.id)): EditorStep {
  return {
    key,
    id: step.id,
    type: step.type,
    serviceId: step.serviceId,
    operationKey: step.operationKey,
    inputFields: step.inputFields,
    outputFields: step.outputFields,
    coordinates: step.coordinates,
    linkConditions: step.linkConditions,
    mustConfig: step.mustConfig,
    problem: step.problem,
    peopleCount: step.peopleCount,
  };
}

function fromFlow(flow: Flow): EditorState {
  return {
    steps: Object.values(flow.steps).map((step) => fromStep(step)),
    links: flow.links.map((link) => ({ key: linkKey(link.id), id: link.id, source: stepKey(link.source), target: stepKey(link.target), condition: link.condition })),
  };
}

/** Link conditions a new step offers before the server says: yes/no for filters, the variant names of an A/B test. */
function localConditions(step: NewStep): string[] | null {
  if (step.type === 'filter') return ['yes', 'no'];
  if (step.operationKey === '/ab-test') {
    const variants = step.inputFields?.properties?.variants?.value;
    return Array.isArray(variants) ? variants.map((v: { name?: unknown }) => String(v.name)) : null;
  }
  return null;
}

let temporaryIds = 0;
const temporaryId = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(temporaryIds++).toString(36)}`;

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
  const idOf = (key: string): number | null => ids.current.get(key) ?? (/^\d+$/.test(key) ? Number(key) : null);

  /** Resolves true when the change may go ahead: the flow is off, or the user confirmed changing it while active. */
  const mayEdit = useCallback(async (): Promise<boolean> => {
    if (status.current !== 'active' || isConfirmed.current) return true;
    const answer = await confirmActiveEdit();
    if (answer) isConfirmed.current = true;
    return answer;
  }, []);

  const update = (change: (current: EditorState) => EditorState) => setState((current) => (current ? change(current) : current));
  const replaceStep = (key: string, step: Step) =>
    update((s) => ({ ...s, steps: s.steps.map((one) => (one.key === key ? { ...fromStep(step, key), coordinates: one.coordinates } : one)) }));

  const activeEdit = () => (status.current === 'active' ? { confirmActiveEdit: true } : {});

  const addStep = useCallback(
    async (step: NewStep, coordinates: { x: number; y: number }): Promise<string | null> => {
      if (!(await mayEdit())) return null;
      const key = temporaryId('new-step');
      const inputFields = step.inputFields ?? {};
      update((s) => ({
        ...s,
        steps: [
          ...s.steps,
          { key, id: null, type: step.type, serviceId: step.serviceId, operationKey: step.operationKey, inputFields, outputFields: null, coordinates, linkConditions: localConditions(step), mustConfig: step.mustConfig, problem: null, peopleCount: 0 },
        ],
      }));
      void enqueue(async () => {
        try {
          const answer = await api.post('/steps/', { flowId, tempId: key, serviceId: step.serviceId, operationKey: step.operationKey, inputFields, coordinates }, { schema: StepResponse });
          ids.current.set(key, answer.step.id);
          // The temporary id is swapped for the server's everywhere it is used.
          const saved = stepKey(answer.step.id);
          const swap = (k: string) => (k === key ? saved : k);
          update((s) => ({
            steps: s.steps.map((one) => (one.key === key ? { ...fromStep(answer.step), coordinates: one.coordinates } : one)),
            links: s.links.map((link) => ({ ...link, source: swap(link.source), target: swap(link.target) })),
          }));
          setRenamed({ from: key, to: saved });
        } catch (error) {
          update((s) => ({ steps: s.steps.filter((one) => one.key !== key), links: s.links.filter((link) => link.source !== key && link.target !== key) }));
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
      update((s) => ({ ...s, steps: s.steps.map((one) => (one.key === key ? { ...one, inputFields } : one)) }));
      let isSaved = false;
      await enqueue(async () => {
        const id = idOf(key);
        if (id === null) return;
        try {
          const answer = await api.patch(`/steps/${id}`, { inputFields, ...activeEdit() }, { schema: StepResponse });
          replaceStep(stepKey(id), answer.step);
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
    (key: string, coordinates: { x: number; y: number }) => {
      const rounded = { x: Math.round(coordinates.x), y: Math.round(coordinates.y) };
      update((s) => ({ ...s, steps: s.steps.map((one) => (one.key === key ? { ...one, coordinates: rounded } : one)) }));
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
      update((s) => ({ steps: s.steps.filter((one) => one.key !== key), links: s.links.filter((link) => link.source !== key && link.target !== key) }));
      void enqueue(async () => {
        const id = idOf(key);
        if (id === null) return;
        try {
          await api.delete(`/steps/${id}${status.current === 'active' ? '?confirmActiveEdit=true' : ''}`);
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
      if (!state || state.links.some((link) => link.source === source && link.target === target)) return;
      if (!(await mayEdit())) return;
      const key = temporaryId('new-link');
      update((s) => ({ ...s, links: [...s.links, { key, id: null, source, target, condition }] }));
      void enqueue(async () => {
        const sourceId = idOf(source);
        const targetId = idOf(target);
        try {
          if (sourceId === null || targetId === null) throw new Error(flowMessages.linkCreateError);
          const answer = await api.post('/links/', { source: sourceId, target: targetId, condition }, { schema: LinkResponse });
          update((s) => ({ ...s, links: s.links.map((link) => (link.key === key ? { ...link, key: linkKey(answer.link.id), id: answer.link.id } : link)) }));
        } catch (error) {
          update((s) => ({ ...s, links: s.links.filter((link) => link.key !== key) }));
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
      update((s) => ({ ...s, links: s.links.filter((one) => one.key !== key) }));
      void enqueue(async () => {
        try {
          if (link.id !== null) await api.delete(`/links/${link.id}`);
          else {
            const source = idOf(link.source);
            const target = idOf(link.target);
            if (source !== null && target !== null) await api.delete(`/links/${source}/${target}`);
          }
        } catch (error) {
          update((s) => ({ ...s, links: [...s.links, link] }));
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
      const { x, y } = step.coordinates;
      return addStep(
        { type: step.type, serviceId: step.serviceId, operationKey: step.operationKey, mustConfig: step.mustConfig, inputFields: step.inputFields },
        { x: x + flowLimits.duplicateOffset, y: y + flowLimits.duplicateOffset },
      );
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
    () => ({ state, pending, renamed, addStep, saveStepSettings, moveStep, deleteStep, duplicateStep, addLink, deleteLink, flush, resetConfirmation }),
    [state, pending, renamed, addStep, saveStepSettings, moveStep, deleteStep, duplicateStep, addLink, deleteLink, flush, resetConfirmation],
  );
}

export type FlowEditor = ReturnType<typeof useFlowEditor>;
