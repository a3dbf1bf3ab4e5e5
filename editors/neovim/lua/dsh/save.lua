--- Saving agent edits on the server's request: the `dsh/saveDocuments` handler.
---
--- With `edits.save_after_turn` on, the server lists the documents the agent edited that are
--- not saved yet at the end of each turn. Each listed buffer that is loaded and modified is
--- written with `:write` (so `BufWritePre` / `BufWritePost` autocmds run as for a user
--- save); a loaded buffer without changes already matches the disk and counts as saved. The
--- answer `{saved = {...}}` names the uris saved, as the server spelled them. A uri with no
--- loaded file buffer and a failed write (read-only buffer, unwritable file) are left out,
--- and the server keeps them pending for the next turn.

local api = vim.api

local M = {}

--- The loaded file buffer showing `uri`, if any (never creates one).
---@param uri string
---@return integer?
function M.buffer(uri)
  local ok, fname = pcall(vim.uri_to_fname, uri)
  if not ok or not vim.startswith(uri, 'file:') then
    return nil
  end
  fname = vim.fs.normalize(fname)
  local real = vim.uv.fs_realpath(fname)
  for _, bufnr in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].buftype == '' then
      local name = vim.fs.normalize(api.nvim_buf_get_name(bufnr))
      if name == fname or (real ~= nil and name ~= '' and vim.uv.fs_realpath(name) == real) then
        return bufnr
      end
    end
  end
end

--- Write `bufnr` when it has changes; returns whether the disk now holds its text.
---@param bufnr integer
---@return boolean saved
---@return string? err
function M.write(bufnr)
  if not vim.bo[bufnr].modified then
    return true
  end
  local ok, err = pcall(api.nvim_buf_call, bufnr, function()
    vim.cmd('silent write')
  end)
  if not ok then
    return false, tostring(err)
  end
  return not vim.bo[bufnr].modified
end

--- Handler for `dsh/saveDocuments`; returns `{saved = {uri...}}`. Never raises.
---@param _ any
---@param params table {uris: string[]}
---@return table
function M.handler(_, params)
  local saved, seen = {}, {}
  local uris = type(params) == 'table' and type(params.uris) == 'table' and params.uris or {}
  for _, uri in ipairs(uris) do
    if type(uri) == 'string' and not seen[uri] then
      seen[uri] = true
      local bufnr = M.buffer(uri)
      if bufnr then
        local ok, err = M.write(bufnr)
        if ok then
          saved[#saved + 1] = uri
        else
          require('dsh.client').notify(
            'could not save ' .. vim.uri_to_fname(uri) .. (err and (': ' .. err) or ''),
            vim.log.levels.WARN
          )
        end
      end
    end
  end
  return { saved = saved }
end

return M
