import type { EmailEditor } from '@herald/contracts';

/** What the email page gives every editor: the content, where changes go, and how to insert a merge tag. */
export interface EditorProps {
  value: EmailEditor;
  onChange: (value: EmailEditor) => void;
  readOnly: boolean;
  /** The editor hands over a function that inserts text (a merge tag) at its cursor. */
  onInsertReady: (insert: ((text: string) => void) | null) => void;
}
