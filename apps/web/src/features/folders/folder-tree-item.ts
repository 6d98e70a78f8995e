/** An item a folder tree lists (a segment, an email, a flow…), as the tree's rows and dialogs see it. */
export interface FolderTreeItem {
  id: string | number;
  label: string;
  /** A colour dot before the label (segments have colours). */
  color?: string | null;
  /** The item the page shows now: highlighted and marked as the current page. */
  isCurrent?: boolean;
  /** A number shown after the label (a segment's people), with its spoken form. */
  count?: { value: number; label: string } | null;
}
