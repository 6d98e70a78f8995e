import { importMessages, maxImportBytes } from '@herald/contracts';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { errorMessage } from '../../lib/api.ts';
import { notifyError } from '../../lib/notify.ts';
import { countRows, readPreview, type CsvPreview } from './csv-preview.ts';
import { getUploadUrl, uploadFile, type ExistingPeopleStrategy } from './imports.api.ts';
import type { ColumnChoice } from './mapping.ts';

export const importStages = [
  { id: 'upload', label: 'Upload', description: 'Choose a CSV file' },
  { id: 'mapping', label: 'Map fields', description: 'Match columns to fields' },
  { id: 'tags', label: 'Tags', description: 'Name, tags and options' },
  { id: 'confirm', label: 'Confirm', description: 'Check and start' },
] as const;
export type ImportStageId = (typeof importStages)[number]['id'];

export const isImportStage = (value: string | undefined): value is ImportStageId =>
  importStages.some((s) => s.id === value);

export interface UploadState {
  status: 'idle' | 'uploading' | 'done' | 'failed';
  progress: number;
  key: string | null;
  error: string | null;
}

export interface WizardState {
  file: File | null;
  fileError: string | null;
  preview: CsvPreview | null;
  /** Data rows in the whole file; null while counting. */
  rowCount: number | null;
  isCounting: boolean;
  upload: UploadState;
  /** One choice per column; null until the mapping stage first opens. */
  choices: ColumnChoice[] | null;
  tags: string[];
  name: string;
  strategy: ExistingPeopleStrategy;
  /** Double opt-in: the file's people confirmed their subscription already. */
  alreadyConfirmed: boolean;
}

const initialUpload: UploadState = { status: 'idle', progress: 0, key: null, error: null };
const initialState: WizardState = {
  file: null,
  fileError: null,
  preview: null,
  rowCount: null,
  isCounting: false,
  upload: initialUpload,
  choices: null,
  tags: [],
  name: '',
  strategy: 'update',
  alreadyConfirmed: false,
};

interface WizardContextValue {
  state: WizardState;
  chooseFile: (file: File | null) => void;
  retryUpload: () => void;
  update: (
    changes: Partial<Pick<WizardState, 'choices' | 'tags' | 'name' | 'strategy' | 'alreadyConfirmed'>>,
  ) => void;
  reset: () => void;
}

const WizardContext = createContext<WizardContextValue | null>(null);

/** "webinar-leads_2026.csv" → "webinar-leads_2026". */
export const nameFromFile = (fileName: string) =>
  fileName
    .replace(/\.[^.]+$/, '')
    .trim()
    .slice(0, 200);

function fileProblem(file: File): string | null {
  if (file.size === 0) return importMessages.noPeople;
  if (file.size > maxImportBytes)
    return `The file is too large: at most ${Math.round(maxImportBytes / 1024 / 1024)} MB.`;
  return null;
}

/**
 * The new-import wizard's state, kept above the stage routes so /people/imports/new/{stage} can move
 * back and forth without losing the file, the upload in progress or the mapping.
 */
export function ImportWizardProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<WizardState>(initialState);
  const work = useRef<AbortController | null>(null);

  useEffect(() => () => work.current?.abort(), []);

  const startUpload = useCallback((file: File, signal: AbortSignal) => {
    setState((s) => ({ ...s, upload: { status: 'uploading', progress: 0, key: null, error: null } }));
    void (async () => {
      try {
        const { url, key } = await getUploadUrl();
        await uploadFile(url, file, {
          signal,
          onProgress: (progress) => {
            if (!signal.aborted) setState((s) => ({ ...s, upload: { ...s.upload, progress } }));
          },
        });
        if (!signal.aborted)
          setState((s) => ({ ...s, upload: { status: 'done', progress: 1, key, error: null } }));
      } catch (error) {
        if (signal.aborted) return;
        const message = errorMessage(error, importMessages.couldNotProcess);
        notifyError(error, importMessages.couldNotProcess, { id: 'import-upload' });
        setState((s) => ({ ...s, upload: { status: 'failed', progress: 0, key: null, error: message } }));
      }
    })();
  }, []);

  const chooseFile = useCallback(
    (file: File | null) => {
      work.current?.abort();
      if (!file) return;
      const controller = new AbortController();
      work.current = controller;
      const { signal } = controller;
      const problem = fileProblem(file);
      if (problem) {
        setState({ ...initialState, file, fileError: problem });
        return;
      }
      setState({ ...initialState, file, name: nameFromFile(file.name), isCounting: true });
      void (async () => {
        try {
          const preview = await readPreview(file);
          if (signal.aborted) return;
          if (preview.header.length === 0 || preview.header.every((h) => h === '')) {
            setState((s) => ({ ...s, fileError: importMessages.noPeople, isCounting: false }));
            return;
          }
          setState((s) => ({ ...s, preview }));
          startUpload(file, signal);
          const rowCount = await countRows(file, { signal });
          if (signal.aborted) return;
          setState((s) => ({
            ...s,
            rowCount,
            isCounting: false,
            fileError: rowCount === 0 ? importMessages.noPeople : s.fileError,
          }));
        } catch {
          if (signal.aborted) return;
          setState((s) => ({
            ...s,
            fileError: "We couldn't read this file. Is it a CSV file?",
            isCounting: false,
          }));
        }
      })();
    },
    [startUpload],
  );

  const retryUpload = useCallback(() => {
    if (!state.file || !work.current) return;
    startUpload(state.file, work.current.signal);
  }, [startUpload, state.file]);

  const update = useCallback<WizardContextValue['update']>(
    (changes) => setState((s) => ({ ...s, ...changes })),
    [],
  );

  const reset = useCallback(() => {
    work.current?.abort();
    work.current = null;
    setState(initialState);
  }, []);

  const value = useMemo(
    () => ({ state, chooseFile, retryUpload, update, reset }),
    [state, chooseFile, retryUpload, update, reset],
  );
  return <WizardContext.Provider value={value}>{children}</WizardContext.Provider>;
}

export function useImportWizard(): WizardContextValue {
  const value = useContext(WizardContext);
  if (!value) throw new Error('useImportWizard needs an ImportWizardProvider');
  return value;
}
