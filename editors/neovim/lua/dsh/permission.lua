--- Permission requests (`dsh/requestPermission`): the question never takes the keyboard.
---
--- With `permissions.prompt = 'float'` (the default) the question is a float that does not
--- take focus: the proposed change (a diff of the whole file, with its real line numbers),
--- then the options, numbered. The user answers when they choose to: `:DshAnswer` goes to
--- the float (its number keys answer; `:DshAnswer 1` or `:DshAnswer allow_once` answers at
--- once). Keys typed in another buffer stay there. With `prompt = 'select'` the question is
--- `vim.ui.select` at once, drawn after the preview (the stock picker blocks and would
--- otherwise open before the preview is on screen).
---
--- A shell command's question offers the command prefix "always allow" would remember
--- (`params.prefix`, e.g. `npm test`): choosing it asks for that prefix with `vim.ui.input`
--- (prefilled; edit it to `npm`, or dismiss to leave the question open), and `:DshAnswer 2
--- npm` gives it at once. The server remembers the confirmed prefix for the workspace.
---
--- The handler runs inside the coroutine Neovim's RPC layer gives each server request, so
--- it yields until the user answers. A question still open when its turn ends is answered
--- `cancelled` and its float closed.

local api = vim.api

local M = {}

---@class dsh.Question
---@field title string
---@field options table[]
---@field prefix? string The command prefix "always allow" offers (a shell command's question).
---@field answer fun(choice?: table, prefix?: string)
---@field choose fun(choice?: table, prefix?: string) `answer`, after asking for the prefix.
---@field win? integer The float (or split) showing it.
---@field prev? integer The window the user came from (`:DshAnswer` focus).

---@type dsh.Question[]
M.pending = {}

--- The text the editor holds for `path` (its buffer when loaded, else the file), or nil.
---@param path string absolute
---@return string?
local function current_text(path)
  local bufnr = vim.fn.bufnr(path)
  if bufnr > 0 and api.nvim_buf_is_loaded(bufnr) then
    local lines = api.nvim_buf_get_lines(bufnr, 0, -1, false)
    local eol = vim.bo[bufnr].eol or vim.bo[bufnr].fixeol
    return table.concat(lines, '\n') .. (eol and '\n' or '')
  end
  local f = io.open(path, 'rb')
  if not f then
    return nil
  end
  local text = f:read('*a')
  f:close()
  return text
end

---@param path string as the server sent it (absolute or workspace-relative)
---@return string
local function absolute(path)
  if path:sub(1, 1) == '/' then
    return path
  end
  local client = require('dsh.client').get()
  local root = client and client.root_dir or vim.fn.getcwd()
  return root .. '/' .. path
end

--- A unified diff of `old` → `new` without the "\ No newline at end of file" noise.
---@param old string
---@param new string
---@return string
local function unified(old, new)
  local function ended(s)
    return (s == '' or s:sub(-1) == '\n') and s or (s .. '\n')
  end
  return vim.diff(ended(old), ended(new), { result_type = 'unified', ctxlen = 3 }) --[[@as string]]
end

--- The unified diff text a tool call proposes, or nil when it carries no change. Each file's
--- fragments (`old_string` → `new_string`) are applied to the text the editor holds, so the
--- hunks carry the file's real line numbers; a fragment not found there is shown alone.
---@param tool table toolCall of the request
---@return string?
function M.diff_text(tool)
  local order, files = {}, {}
  local function file(path)
    if not files[path] then
      local text = current_text(absolute(path))
      files[path] = { base = text, text = text, loose = {} }
      order[#order + 1] = path
    end
    return files[path]
  end
  for _, item in ipairs(type(tool.content) == 'table' and tool.content or {}) do
    if item.type == 'diff' and type(item.newText) == 'string' then
      local f = file(item.path or '?')
      local old = item.oldText ~= vim.NIL and item.oldText or nil
      if old == nil then
        f.text = item.newText -- a whole-file write
      elseif f.text then
        local s, e = f.text:find(old, 1, true)
        if s then
          f.text = f.text:sub(1, s - 1) .. item.newText .. f.text:sub(e + 1)
        else
          f.loose[#f.loose + 1] = unified(old, item.newText)
        end
      else
        f.loose[#f.loose + 1] = unified(old, item.newText)
      end
    end
  end
  local raw = type(tool.rawInput) == 'table' and tool.rawInput or {}
  if #order == 0 and type(raw.old_string) == 'string' and type(raw.new_string) == 'string' then
    local f = file(type(raw.path) == 'string' and raw.path or raw.file_path or '?')
    f.loose[#f.loose + 1] = unified(raw.old_string, raw.new_string)
  end
  local chunks = {}
  for _, path in ipairs(order) do
    local f = files[path]
    local shown = require('dsh.client').relative(absolute(path))
    local body = (f.text ~= f.base) and unified(f.base or '', f.text) or ''
    body = body .. table.concat(f.loose)
    if body ~= '' then
      chunks[#chunks + 1] = string.format('--- a/%s\n+++ b/%s\n%s', shown, shown, body)
    end
  end
  if #chunks == 0 then
    return nil
  end
  return (table.concat(chunks, '\n'):gsub('\n$', ''))
end

--- The option lines of a question: `[1] Allow once  [2] …`.
---@param options table[]
---@return string
local function option_line(options)
  local parts = {}
  for i, option in ipairs(options) do
    parts[#parts + 1] = string.format('[%d] %s', i, option.name or option.optionId)
  end
  return table.concat(parts, '  ')
end

--- Show `lines` in a window that does not take focus; returns it.
---@param lines string[]
---@param title string
---@param filetype string
---@return integer win
local function show(lines, title, filetype)
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].filetype = filetype
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  local win
  if require('dsh.config').options.window.diff == 'split' then
    local prev = api.nvim_get_current_win()
    vim.cmd('noautocmd botright split')
    win = api.nvim_get_current_win()
    api.nvim_win_set_buf(win, buf)
    api.nvim_win_set_height(win, math.min(#lines, math.floor(vim.o.lines * 0.4)) + 1)
    vim.cmd('noautocmd call nvim_set_current_win(' .. prev .. ')')
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
      focusable = true,
    })
  end
  return win
end

--- Show `text` in a diff preview window (not focused); returns the function that closes it.
---@param text string
---@param title string
---@return fun()
function M.preview(text, title)
  local lines = vim.split(text, '\n', { plain = true })
  local win = show(lines, title, 'diff')
  vim.w[win].dsh_diff_preview = true
  return function()
    if api.nvim_win_is_valid(win) then
      api.nvim_win_close(win, true)
    end
  end
end

--- Close `q`'s window and give the user their window back if `:DshAnswer` moved them.
---@param q dsh.Question
local function dismiss(q)
  for i, other in ipairs(M.pending) do
    if other == q then
      table.remove(M.pending, i)
      break
    end
  end
  local here = api.nvim_get_current_win()
  if q.win and api.nvim_win_is_valid(q.win) then
    api.nvim_win_close(q.win, true)
  end
  if q.prev and here == q.win and api.nvim_win_is_valid(q.prev) then
    api.nvim_set_current_win(q.prev)
  end
end

--- Ask in a float that does not take focus (see the module doc).
---@param q dsh.Question
---@param diff? string
local function ask_in_float(q, diff)
  local lines = diff and vim.split(diff, '\n', { plain = true }) or {}
  if #lines > 0 then
    lines[#lines + 1] = ''
  end
  lines[#lines + 1] = 'dsh: allow ' .. q.title .. '?'
  lines[#lines + 1] = option_line(q.options) .. '   (:DshAnswer)'
  if q.prefix then
    lines[#lines + 1] = string.format(
      'always allow: you confirm or edit the prefix `%s` first (:DshAnswer allow_always PREFIX)',
      q.prefix
    )
  end
  q.win = show(lines, 'dsh: ' .. q.title, diff and 'diff' or 'text')
  vim.w[q.win].dsh_diff_preview = diff ~= nil
  vim.w[q.win].dsh_question = true
  local buf = api.nvim_win_get_buf(q.win)
  for i, option in ipairs(q.options) do
    vim.keymap.set('n', tostring(i), function()
      q.choose(option)
    end, { buffer = buf, nowait = true, desc = 'dsh: ' .. (option.name or option.optionId) })
  end
  vim.keymap.set('n', 'q', function()
    if q.prev and api.nvim_win_is_valid(q.prev) then
      api.nvim_set_current_win(q.prev)
    end
  end, { buffer = buf, nowait = true, desc = 'dsh: back (the question stays open)' })
  pcall(api.nvim_win_set_cursor, q.win, { #lines, 0 })
  vim.cmd('redraw')
  local short = 'dsh: ' .. q.title .. ' waits for your answer (:DshAnswer)'
  api.nvim_echo({ { short:sub(1, math.max(10, vim.o.columns - 12)), 'WarningMsg' } }, false, {})
end

--- Ask `q` through `vim.ui.select`; the picked option (nil: dismissed) answers it.
---@param q dsh.Question
---@param prompt string
local function pick(q, prompt)
  vim.ui.select(q.options, {
    prompt = prompt,
    kind = 'dsh.permission',
    format_item = function(option)
      return option.name or option.optionId
    end,
  }, function(item)
    q.choose(item)
  end)
end

--- Ask through `vim.ui.select` at once, with the preview drawn first.
---@param q dsh.Question
---@param diff? string
---@param prompt string
local function ask_in_select(q, diff, prompt)
  if diff then
    q.win = show(vim.split(diff, '\n', { plain = true }), q.title, 'diff')
    vim.w[q.win].dsh_diff_preview = true
  end
  vim.cmd('redraw')
  pick(q, prompt)
end

--- `:DshAnswer [n|optionId [prefix]]`: answer the oldest open question, or go to it. A
--- prefix after "always allow" is the command prefix to remember (asked for when left out).
---@param arg? string
function M.answer_command(arg)
  local q = M.pending[1]
  if not q then
    vim.notify('dsh: no question is waiting', vim.log.levels.INFO)
    return
  end
  local which, rest = (arg or ''):match('^%s*(%S*)%s*(.-)%s*$')
  if which ~= '' then
    for i, option in ipairs(q.options) do
      if tostring(i) == which or option.optionId == which then
        return q.choose(option, rest ~= '' and rest or nil)
      end
    end
    vim.notify(
      'dsh: no option ' .. which .. ' (' .. option_line(q.options) .. ')',
      vim.log.levels.WARN
    )
    return
  end
  if q.win and api.nvim_win_is_valid(q.win) then
    q.prev = api.nvim_get_current_win()
    api.nvim_set_current_win(q.win)
    return
  end
  pick(q, 'dsh: allow ' .. q.title .. '?')
end

--- Answer every open question `cancelled` (their turn ended).
function M.cancel_all()
  for _, q in ipairs(vim.list_slice(M.pending)) do
    q.answer(nil)
  end
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
  local ok_diff, diff = pcall(function()
    return (tool.kind == 'edit' or tool.kind == 'delete' or tool.kind == 'move')
        and M.diff_text(tool)
      or nil
  end)
  diff = ok_diff and diff or nil
  local why = type(params.reason) == 'string' and (' (' .. params.reason .. ')') or ''
  local co = coroutine.running()
  local answered, waiting, choice, prefix = false, false, nil, nil
  ---@type dsh.Question
  local q = { title = title, options = params.options or {} }
  if type(params.prefix) == 'string' and vim.trim(params.prefix) ~= '' then
    q.prefix = params.prefix
  end
  q.answer = function(item, given)
    if answered then
      return
    end
    answered, choice, prefix = true, item, given
    dismiss(q)
    if waiting then
      coroutine.resume(co)
    end
  end
  q.choose = function(item, given)
    if not (item and item.optionId == 'allow_always' and q.prefix) then
      return q.answer(item)
    end
    if given then
      return q.answer(item, M.normalize_prefix(given, q.prefix))
    end
    vim.ui.input({
      prompt = 'dsh: always allow commands starting with: ',
      default = q.prefix,
    }, function(text)
      if text ~= nil then -- dismissed: the question stays open
        q.answer(item, M.normalize_prefix(text, q.prefix))
      end
    end)
  end
  M.pending[#M.pending + 1] = q
  local mode = require('dsh.config').options.permissions.prompt
  local ok, err = pcall(function()
    if mode == 'select' then
      ask_in_select(q, diff, 'dsh: allow ' .. title .. why .. '?')
    else
      ask_in_float(q, diff)
    end
  end)
  if not ok then
    dismiss(q)
    vim.notify('dsh: permission prompt failed: ' .. tostring(err), vim.log.levels.ERROR)
    return { outcome = { outcome = 'cancelled' } }
  end
  if not answered then
    assert(co, 'dsh: permission requests must be handled in a coroutine')
    waiting = true
    coroutine.yield()
  end
  if choice == nil or client.state.turn ~= turn then
    return { outcome = { outcome = 'cancelled' } }
  end
  local outcome = { outcome = 'selected', optionId = choice.optionId }
  if choice.optionId == 'allow_always' and prefix then
    outcome.prefix = prefix
  end
  return { outcome = outcome }
end

--- The prefix to remember from what the user typed: whitespace collapsed; empty → `offered`.
---@param typed string
---@param offered string
---@return string
function M.normalize_prefix(typed, offered)
  local text = vim.trim(typed):gsub('%s+', ' ')
  return text ~= '' and text or offered
end

return M
