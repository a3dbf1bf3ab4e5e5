--- dsh: a chat with the dsh-lsp coding agent in Neovim. The public Lua API.
---
--- Every function requires its module lazily, so loading this file costs nothing.
--- See `:help dsh`.

local M = {}

--- Validate and apply options (see `:help dsh-options`); also enables the `dsh` LSP config.
---@param opts? table
function M.setup(opts)
  require('dsh.config').setup(opts)
end

--- Send a prompt on the active session (created on demand).
--- `text` may contain `#buffer` and `#diagnostics`; `opts.on_update(update)` sees every
--- session update of the turn, `opts.on_done(result)` gets the `dsh/prompt` result
--- (`{stopReason, usage?}`) or `{error = {code?, message, data?}}`.
---@param text string|table[] prompt text, or ContentBlocks
---@param opts? dsh.AskOptions
function M.ask(text, opts)
  require('dsh.client').ask(text, opts)
end

--- Cancel the running turn. Returns false when no turn runs.
---@return boolean
function M.cancel()
  return require('dsh.client').cancel()
end

--- List sessions (newest first): `cb(sessions)` with `{sessionId, cwd, title?, createdAt,
--- updatedAt}` items, or `cb(nil, err)`. Without `cb`, pick one and resume it.
---@param cb? fun(sessions?: table[], err?: string)
function M.sessions(cb)
  if cb then
    require('dsh.sessions').list(cb)
  else
    require('dsh.sessions').pick()
  end
end

--- Resume `session_id`, replaying its history into the chat; `cb(result)` or `cb(nil, err)`.
---@param session_id string
---@param cb? fun(result?: table, err?: string)
function M.resume(session_id, cb)
  require('dsh.sessions').resume(session_id, cb)
end

--- Start a fresh session; `cb(session_id)` or `cb(nil, err)`.
---@param cb? fun(session_id?: string, err?: string)
function M.new_session(cb)
  require('dsh.sessions').new_session(cb)
end

--- Open or close the chat window.
function M.toggle()
  require('dsh.chat').toggle()
end

--- Put the files the last turn changed in the quickfix list.
function M.changes()
  return require('dsh.edits').quickfix()
end

--- The chat buffer (created on first use).
---@return integer
function M.chat_buffer()
  return require('dsh.chat').buffer()
end

return M
