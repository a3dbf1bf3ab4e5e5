--- Agent edits in buffers: the `workspace/applyEdit` wrapper and the per-turn change list.
---
--- Neovim's built-in handler skips a `TextDocumentEdit` whose version is older than the
--- buffer but still answers `applied = true`. The wrapper checks every versioned document
--- edit against the buffer's LSP version first and answers `applied = false` with a reason
--- when any is stale, so the server can tell the model. It then groups undo: the first edit
--- of a tool call in a buffer starts a new undo step, later edits of the same tool call
--- join it (unless the user changed the buffer in between), so `u` reverts one tool call.
--- After applying (and after refusing a stale edit), pending `didChange`s are flushed so the
--- server sees the buffer at once.
--- Change annotations are dropped before the built-in handler sees the edit: the plugin
--- asked (`dsh/requestPermission`) already, and Neovim 0.12 announces every annotated edit
--- in a message whose "Press ENTER" prompt would swallow the user's next keystroke.

local api = vim.api

local M = {}

---@type {filename: string, lnum: integer, col: integer, text: string}[]
M.changes = {}
local by_file = {} ---@type table<string, integer>
local last_edit = {} ---@type table<integer, {key: string, tick: integer}>

--- Forget the previous turn's changes (called when a turn starts).
function M.begin_turn()
  M.changes = {}
  by_file = {}
end

--- Note that `filename` changed at `lnum` because of `text` (first note per file wins).
---@param filename string
---@param lnum integer 1-based
---@param text string
function M.record(filename, lnum, text)
  if filename == '' or by_file[filename] then
    return
  end
  M.changes[#M.changes + 1] = { filename = filename, lnum = lnum, col = 1, text = text }
  by_file[filename] = #M.changes
end

--- Record the files a finished editing tool call names (covers edits written to disk).
---@param data table merged tool_call
function M.record_tool(data)
  if
    data.status ~= 'completed' or not vim.tbl_contains({ 'edit', 'delete', 'move' }, data.kind)
  then
    return
  end
  local loc = require('dsh.present').location(data)
  if loc then
    M.record(vim.fn.fnamemodify(loc.path, ':p'), loc.line or 1, data.title or data.name or 'edit')
  end
end

---@param edit table WorkspaceEdit
---@return {index?: integer, uri: string, version?: integer, edits: table[]}[]
local function document_edits(edit)
  local docs = {}
  for i, change in ipairs(edit.documentChanges or {}) do
    if change.textDocument then
      local version = change.textDocument.version
      docs[#docs + 1] = {
        index = i,
        uri = change.textDocument.uri,
        version = type(version) == 'number' and version or nil,
        edits = change.edits or {},
      }
    end
  end
  for uri, edits in pairs(edit.changes or {}) do
    docs[#docs + 1] = { uri = uri, edits = edits }
  end
  return docs
end

--- The stale document edit of `docs`, if any, as an `ApplyWorkspaceEditResult`.
---@param docs table[]
---@param client_id integer
---@return table?
local function stale_result(docs, client_id)
  for _, doc in ipairs(docs) do
    if doc.version then
      local bufnr = vim.uri_to_bufnr(doc.uri)
      if api.nvim_buf_is_loaded(bufnr) and vim.lsp.buf_is_attached(bufnr, client_id) then
        local current = vim.lsp.util.buf_versions[bufnr]
        if current ~= doc.version then
          return {
            applied = false,
            failureReason = string.format(
              'stale version: %s is at version %d, the edit was made for version %d',
              vim.uri_to_fname(doc.uri),
              current,
              doc.version
            ),
            failedChange = doc.index and (doc.index - 1) or nil,
          }
        end
      end
    end
  end
end

--- Start a new undo step in `bufnr`, or join the previous one for the same tool call.
---@param bufnr integer
---@param key string
local function group_undo(bufnr, key)
  if not api.nvim_buf_is_loaded(bufnr) then
    return
  end
  local prev = last_edit[bufnr]
  api.nvim_buf_call(bufnr, function()
    if prev and prev.key == key and prev.tick == api.nvim_buf_get_changedtick(bufnr) then
      pcall(vim.cmd, 'undojoin')
    else
      -- Setting 'undolevels' to its own value closes the current undo block.
      vim.bo[bufnr].undolevels = vim.bo[bufnr].undolevels
    end
  end)
end

--- `edit` without its change annotations (a copy; `edit` is not changed).
---@param edit table WorkspaceEdit
---@return table
local function unannotated(edit)
  if not edit.changeAnnotations then
    return edit
  end
  local plain = vim.deepcopy(edit)
  plain.changeAnnotations = nil
  local function strip(edits)
    for _, e in ipairs(edits or {}) do
      e.annotationId = nil
    end
  end
  for _, change in ipairs(plain.documentChanges or {}) do
    change.annotationId = nil
    strip(change.edits)
  end
  for _, edits in pairs(plain.changes or {}) do
    strip(edits)
  end
  return plain
end

--- Handler for `workspace/applyEdit` (see the module doc). Returns the result table.
---@param err any
---@param params table ApplyWorkspaceEditParams
---@param ctx table
---@return table
function M.handler(err, params, ctx)
  local edit = params and params.edit or {}
  local docs = document_edits(edit)
  local client = vim.lsp.get_client_by_id(ctx.client_id)
  local stale = stale_result(docs, ctx.client_id)
  if stale then
    -- Send the typing that made it stale now, so the model's re-read sees it.
    for _, doc in ipairs(docs) do
      local bufnr = vim.uri_to_bufnr(doc.uri)
      if client and api.nvim_buf_is_loaded(bufnr) then
        pcall(function()
          require('vim.lsp._changetracking').flush(client, bufnr)
        end)
      end
    end
    return stale
  end
  local key = require('dsh.client').state.current_tool or params.label or ''
  for _, doc in ipairs(docs) do
    group_undo(vim.uri_to_bufnr(doc.uri), key)
  end
  -- The built-in handler prints the label ("Workspace edit …"); the chat already shows it.
  local quiet = vim.tbl_extend('force', {}, params)
  quiet.label = nil
  quiet.edit = unannotated(edit)
  local result = vim.lsp.handlers['workspace/applyEdit'](err, quiet, ctx)
  for _, doc in ipairs(docs) do
    local bufnr = vim.uri_to_bufnr(doc.uri)
    if api.nvim_buf_is_loaded(bufnr) then
      last_edit[bufnr] = { key = key, tick = api.nvim_buf_get_changedtick(bufnr) }
      if client then
        pcall(function()
          require('vim.lsp._changetracking').flush(client, bufnr)
        end)
      end
    end
    if result and result.applied then
      local first = doc.edits[1]
      local lnum = first and first.range and first.range.start.line + 1 or 1
      M.record(vim.uri_to_fname(doc.uri), lnum, params.label or 'agent edit')
    end
  end
  for _, change in ipairs(edit.documentChanges or {}) do
    if change.kind == 'create' and result and result.applied then
      M.record(vim.uri_to_fname(change.uri), 1, params.label or 'created')
    end
  end
  return result
end

--- Put the last turn's changed files in the quickfix list and open it.
---@return integer count
function M.quickfix()
  vim.fn.setqflist({}, ' ', { title = 'dsh: files changed by the last turn', items = M.changes })
  if #M.changes > 0 then
    vim.cmd('copen')
  else
    vim.notify('dsh: the last turn changed no files', vim.log.levels.INFO)
  end
  return #M.changes
end

return M
