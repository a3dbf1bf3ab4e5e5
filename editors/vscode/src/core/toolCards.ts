/**
 * How a tool card lays out its parts (pure; the webview renders what this decides).
 *
 * The editor tools (`diagnostics`, `definition`, `references`, `symbols`, `hover`: answers of
 * the editor's other language servers through `dsh/editor/*`) are about places in the code, so
 * their cards list every location as a `path:line` link, even a single one. The text of
 * `definition`, `references` and `symbols` (the same places, with a line of context each) is
 * folded under "Output" when the links show them; the text of `diagnostics` (the messages) and
 * `hover` (the type and docs) is the answer, so it stays open. Other cards list locations only when there are several (one
 * is the card's title link), and fold their text only for reads (a file's content).
 */

import type { ToolKind } from './protocol';

/** The tools answered from the editor's language servers. */
export const EDITOR_TOOLS: ReadonlySet<string> = new Set(['diagnostics', 'definition', 'references', 'symbols', 'hover']);
/** The editor tools whose text only repeats their locations. */
const PLACE_TOOLS: ReadonlySet<string> = new Set(['definition', 'references', 'symbols']);

export interface CardLayout {
  /** Show the locations as a list of links below the head. */
  readonly listLocations: boolean;
  /** Put text parts in a collapsed "Output". */
  readonly foldText: boolean;
}

export function cardLayout(call: { name: string; toolKind: ToolKind; locations: readonly unknown[] }): CardLayout {
  const editorTool = EDITOR_TOOLS.has(call.name);
  const count = call.locations.length;
  return {
    listLocations: count > 1 || (editorTool && count === 1),
    foldText: editorTool ? PLACE_TOOLS.has(call.name) && count > 0 : call.toolKind === 'read',
  };
}
