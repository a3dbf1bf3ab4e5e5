/**
 * The chat webview's HTML document with its Content Security Policy (pure).
 *
 * Nothing loads from outside the extension: `default-src 'none'`, styles and fonts only from
 * the webview's own resource origin, scripts only with the per-load nonce (no inline handlers,
 * no `eval`), no frames, no connections.
 */

import { escapeHtml } from './markdown';

export interface ChatHtmlOptions {
  /** `webview.cspSource`. */
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `img-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** A fresh nonce: 32 characters of [A-Za-z0-9] from `random` (a source of values in [0, 1)). */
export function makeNonce(random: () => number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  for (let i = 0; i < 32; i++) out += alphabet.charAt(Math.floor(random() * alphabet.length));
  return out;
}

export function chatHtml(options: ChatHtmlOptions): string {
  const csp = contentSecurityPolicy(options.cspSource, options.nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeHtml(options.styleUri)}">
<title>dsh chat</title>
</head>
<body>
<header id="toolbar">
  <select id="sessions" title="Sessions: pick one to resume it"></select>
  <button id="refresh-sessions" class="icon" title="Refresh the session list">&#x21bb;</button>
  <button id="new-session" title="Start a new session">New</button>
</header>
<div id="server-status" class="server-status" hidden></div>
<main id="log" aria-live="polite"></main>
<footer id="composer">
  <div id="attachments"></div>
  <textarea id="input" rows="3" placeholder="Ask dsh… (Enter to send, Shift+Enter for a new line, @path to attach a file)"></textarea>
  <div class="composer-actions">
    <button id="attach-file" title="Attach a file">@ File</button>
    <button id="attach-selection" title="Attach the editor selection">+ Selection</button>
    <span class="spacer"></span>
    <button id="cancel" class="danger" title="Stop the running turn" hidden>Stop</button>
    <button id="send" class="primary" title="Send">Send</button>
  </div>
</footer>
<script nonce="${escapeHtml(options.nonce)}" src="${escapeHtml(options.scriptUri)}"></script>
</body>
</html>`;
}
