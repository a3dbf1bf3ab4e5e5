--- Permission requests (`dsh/requestPermission`): `vim.ui.select` over the offered options,
--- with a diff preview of the proposed change for edit tool calls.
---
--- The handler runs inside the coroutine Neovim's RPC layer gives each server request, so
--- it yields while the picker is open and answers when the user chooses. A request whose
--- turn has ended by then (cancelled) is answered `cancelled`.

local api = vim.api

local M = {}

--- The unified diff text a tool call proposes, or nil when it carries no change.
---@param tool table toolCall of the request
---@return string?
function M.diff_text(tool)
  local chunks = {}
  for _, item in ipairs(type(tool.content) == 'table' and tool.content or {}) do
    if item.type == 'diff' and item.newText then
      local path = require('dsh.client').relative(item.path or '?')
      local old = item.oldText ~= vim.NIL and item.oldText or ''
      local body = vim.diff(old, item.newText, { result_type = 'unified', ctxlen = 3 })
      chunks[#chunks + 1] = string.format('--- a/%s\n+++ b/%s\n%s', path, path, body)
    end
  end
  local raw = type(tool.rawInput) == 'table' and tool.rawInput or {}
  if #chunks == 0 and type(raw.old_string) == 'string' and type(raw.new_string) == 'string' then
    local path = type(raw.path) == 'string' and raw.path or '?'
    local body =
      vim.diff(raw.old_string .. '\n', raw.new_string .. '\n', { result_type = 'unified' })
    chunks[#chunks + 1] = string.format('--- a/%s\n+++ b/%s\n%s', path, path, body)
  end
  if #chunks == 0 then
    return nil
  end
  return table.concat(chunks, '\n')
end

--- Show `text` in a diff preview window; returns the function that closes it.
---@param text string
---@param title string
---@return fun()
function M.preview(text, title)
  local lines = vim.split(text, '\n', { plain = true })
  if lines[#lines] == '' then
    table.remove(lines)
  end
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].filetype = 'diff'
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  local win
  if require('dsh.config').options.window.diff == 'split' then
    local prev = api.nvim_get_current_win()
    vim.cmd('botright split')
    win = api.nvim_get_current_win()
    api.nvim_win_set_buf(win, buf)
    api.nvim_win_set_height(win, math.min(#lines, math.floor(vim.o.lines * 0.4)) + 1)
    api.nvim_set_current_win(prev)
  else
    local width = math.min(math.max(40, vim.o.columns - 8), 120)
    local height = math.max(1, math.min(#lines, math.floor(vim.o.lines * 0.6)))
    win = api.nvim_open_win(buf, false, {
      relative = 'editor',
      row = 1,
      col = math.floor((vim.o.columns - width) / 2),
      width = width,
      height = height,
      border = 'rounded',
      title = ' ' .. title .. ' ',
      style = 'minimal',
    })
  end
  vim.w[win].dsh_diff_preview = true
  return function()
    if api.nvim_win_is_valid(win) then
      api.nvim_win_close(win, true)
    end
  end
end

--- Ask the user through `vim.ui.select`; yields the running coroutine until answered.
---@param options table[]
---@param prompt string
---@return table? choice
local function choose(options, prompt)
  local co = coroutine.running()
  local answered, waiting, choice = false, false, nil
  vim.ui.select(options, {
    prompt = prompt,
    kind = 'dsh.permission',
    format_item = function(option)
      return option.name or option.optionId
    end,
  }, function(item)
    answered, choice = true, item
    if waiting then
      coroutine.resume(co)
    end
  end)
  if not answered then
    assert(co, 'dsh: permission requests must be handled in a coroutine')
    waiting = true
    coroutine.yield()
  end
  return choice
end

--- Handler for `dsh/requestPermission`; returns `{outcome = …}`.
---@param _ any
---@param params table
---@return table
function M.handler(_, params)
  local client = require('dsh.client')
  local turn = client.state.turn
  local tool = params.toolCall or {}
  local title = tool.title or tool.kind or 'tool call'
  local close = function() end
  local diff = (tool.kind == 'edit' or tool.kind == 'delete' or tool.kind == 'move')
    and M.diff_text(tool)
  if diff then
    close = M.preview(diff, title)
  end
  local why = type(params.reason) == 'string' and (' (' .. params.reason .. ')') or ''
  local ok, choice = pcall(choose, params.options or {}, 'dsh: allow ' .. title .. why .. '?')
  close()
  if not ok then
    vim.notify('dsh: permission prompt failed: ' .. tostring(choice), vim.log.levels.ERROR)
    return { outcome = { outcome = 'cancelled' } }
  end
  if choice == nil or client.state.turn ~= turn then
    return { outcome = { outcome = 'cancelled' } }
  end
  return { outcome = { outcome = 'selected', optionId = choice.optionId } }
end

return M
