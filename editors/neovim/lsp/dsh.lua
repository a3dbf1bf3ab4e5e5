---@brief
---
--- dsh-lsp: the dsh coding agent served as a language server (this repository).
---
--- `vim.lsp.enable('dsh')` starts it for every file buffer with a filetype; the root is the
--- nearest `root_markers` match (see `require('dsh').setup`), else the current directory.
--- The capabilities turn on the rich `dsh/*` protocol and versioned edits; the handlers
--- route session updates to the chat, permission requests to a question float, wrap
--- `workspace/applyEdit` so a stale edit is refused instead of silently skipped, and
--- `:write` the buffers `dsh/saveDocuments` lists (`edits.save_after_turn`), and answer the
--- `dsh/editor/*` requests from the buffer's other language servers (`dsh.editor`).

require('dsh.editor').install()

--- A handler that loads `module` only when the first message comes and calls its `name`.
local function lazy(module, name)
  return function(...)
    return require(module)[name](...)
  end
end

local handlers = {
  ['dsh/session/update'] = lazy('dsh.client', 'on_update'),
  ['dsh/requestPermission'] = lazy('dsh.permission', 'handler'),
  ['workspace/applyEdit'] = lazy('dsh.edits', 'handler'),
  ['dsh/saveDocuments'] = lazy('dsh.save', 'handler'),
}
for method, handler in pairs(require('dsh.editor').handlers()) do
  handlers[method] = handler
end

---@type vim.lsp.Config
return {
  cmd = { 'dsh-lsp' },
  root_dir = function(bufnr, on_dir)
    if vim.bo[bufnr].buftype ~= '' or vim.api.nvim_buf_get_name(bufnr) == '' then
      return
    end
    local markers = require('dsh.config').options.root_markers
    on_dir(vim.fs.root(bufnr, markers) or vim.fn.getcwd())
  end,
  capabilities = {
    experimental = {
      dsh = {
        version = 1,
        sessionUpdates = true,
        permissions = true,
        saveDocuments = true,
        editor = require('dsh.editor').capabilities,
      },
    },
    workspace = {
      applyEdit = true,
      workspaceEdit = { documentChanges = true },
    },
  },
  init_options = require('dsh.config').server_settings(),
  settings = { dsh = require('dsh.config').server_settings() },
  handlers = handlers,
  on_exit = function(code, signal)
    if code ~= 0 then
      require('dsh.client').record_error(
        string.format('the server exited with code %d (signal %d)', code, signal or 0)
      )
    end
  end,
}
