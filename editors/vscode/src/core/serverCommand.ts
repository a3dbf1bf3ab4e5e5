/**
 * Which program runs the server (pure, dependencies injected).
 *
 * Order: the `dsh.server.command` setting; else `dsh-lsp` found on PATH; else
 * `<interpreter> -m dsh_lsp` with the selected Python interpreter (the Python extension's
 * choice when it is installed, else `python3`). vscode-languageclient appends `--stdio`.
 */

export interface ServerLaunch {
  command: string;
  args: string[];
  /** Where the choice came from, for the output channel. */
  source: 'setting' | 'path' | 'interpreter';
}

export interface LaunchDeps {
  /** The absolute path of `name` on PATH, or `undefined`. */
  which(name: string): Promise<string | undefined>;
  /** The selected Python interpreter, or `undefined` when none is known. */
  interpreter(): Promise<string | undefined>;
}

export const SERVER_EXECUTABLE = 'dsh-lsp';
export const SERVER_MODULE = 'dsh_lsp';
export const FALLBACK_PYTHON = 'python3';

export async function resolveServerLaunch(configured: readonly string[], deps: LaunchDeps): Promise<ServerLaunch> {
  const [command, ...args] = configured;
  if (command !== undefined) return { command, args, source: 'setting' };
  const onPath = await deps.which(SERVER_EXECUTABLE);
  if (onPath !== undefined) return { command: onPath, args: [], source: 'path' };
  const python = (await deps.interpreter()) ?? FALLBACK_PYTHON;
  return { command: python, args: ['-m', SERVER_MODULE], source: 'interpreter' };
}

/** Look `name` up in a PATH string (`isExecutable` checks one candidate path). */
export async function whichIn(
  name: string,
  pathValue: string | undefined,
  separator: string,
  isExecutable: (candidate: string) => Promise<boolean>,
  extensions: readonly string[] = [''],
): Promise<string | undefined> {
  for (const dir of (pathValue ?? '').split(separator)) {
    if (dir === '') continue;
    for (const ext of extensions) {
      const candidate = `${dir.replace(/[\\/]+$/, '')}/${name}${ext}`;
      if (await isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}
