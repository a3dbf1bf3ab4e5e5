--- The chat: one markdown buffer (`dsh://chat`), its window, keymaps and prompt input.
---
--- The buffer exists from the first use on, shown or not; `toggle()` opens or closes its
--- window (split, vertical split or float, per `window.layout`). Rendering is delegated to
--- a `dsh.render` renderer; this module adds what needs windows: following the output
--- while the cursor sits in the input area, jumping to a tool call's `path:line`, and
--- sending the typed prompt.

local api = vim.api

local M = {}

---@type {buf?: integer, win?: integer, renderer?: dsh.Renderer, follow_pending: boolean}
M.state = { follow_pending = false }

local function options()
  return require('dsh.config').options
end

local function session_cwd()
  local client = require('dsh.client').get()
  return client and client.root_dir or vim.fn.getcwd()
end

---@param buf integer
local function set_keymaps(buf)
  local keys = options().keymaps
  local function map(modes, lhs, rhs, desc)
    vim.keymap.set(modes, lhs, rhs, { buffer = buf, desc = 'dsh: ' .. desc, nowait = true })
  end
  map({ 'n', 'i' }, keys.send, M.send, 'send the prompt')
  map('n', keys.send_normal, M.enter, 'jump to the tool call location or send the prompt')
  map({ 'n', 'i' }, keys.cancel, function()
    require('dsh.client').cancel()
  end, 'cancel the running turn')
  map('n', keys.close, M.close, 'close the chat window')
end

--- The chat buffer, created on first use.
---@return integer
function M.buffer()
  local buf = M.state.buf
  if buf and api.nvim_buf_is_valid(buf) then
    return buf
  end
  buf = api.nvim_create_buf(false, true)
  M.state.buf = buf
  pcall(api.nvim_buf_set_name, buf, 'dsh://chat')
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'hide'
  vim.bo[buf].swapfile = false
  vim.bo[buf].filetype = 'markdown'
  M.state.renderer = require('dsh.render').new(buf, { cwd = session_cwd() })
  set_keymaps(buf)
  return buf
end

---@return dsh.Renderer
function M.renderer()
  M.buffer()
  return M.state.renderer
end

---@param win integer
local function set_window_options(win)
  local wo = vim.wo[win][0]
  wo.wrap = true
  wo.linebreak = true
  wo.number = false
  wo.relativenumber = false
  wo.signcolumn = 'no'
  wo.foldmethod = 'expr'
  wo.foldexpr = "v:lua.require'dsh.fold'.foldexpr(v:lnum)"
  wo.foldtext = "v:lua.require'dsh.fold'.foldtext()"
  wo.foldlevel = 0
  wo.foldenable = true
  wo.conceallevel = 2
end

---@param size number
---@param total integer
---@return integer
local function dimension(size, total)
  if size < 1 then
    return math.max(1, math.floor(total * size))
  end
  return math.floor(size)
end

--- Open the chat window (focusing it) unless it is already open.
---@return integer win
function M.open()
  local buf = M.buffer()
  local win = M.state.win
  if win and api.nvim_win_is_valid(win) then
    api.nvim_set_current_win(win)
    return win
  end
  local layout = options().window
  if layout.layout == 'float' then
    local width = dimension(layout.width, vim.o.columns)
    local height = dimension(layout.height, vim.o.lines - 2)
    win = api.nvim_open_win(buf, true, {
      relative = 'editor',
      width = width,
      height = height,
      row = math.floor((vim.o.lines - height) / 2) - 1,
      col = math.floor((vim.o.columns - width) / 2),
      border = 'rounded',
      title = ' dsh ',
    })
  elseif layout.layout == 'split' then
    vim.cmd('botright ' .. dimension(layout.height, vim.o.lines) .. 'split')
    win = api.nvim_get_current_win()
    api.nvim_win_set_buf(win, buf)
  else
    vim.cmd('botright ' .. dimension(layout.width, vim.o.columns) .. 'vsplit')
    win = api.nvim_get_current_win()
    api.nvim_win_set_buf(win, buf)
  end
  M.state.win = win
  set_window_options(win)
  local last = api.nvim_buf_line_count(buf)
  api.nvim_win_set_cursor(win, { last, 0 })
  return win
end

--- Close the chat window (the buffer and its transcript stay).
function M.close()
  local win = M.state.win
  if win and api.nvim_win_is_valid(win) then
    if #api.nvim_list_wins() > 1 then
      api.nvim_win_close(win, false)
    else
      vim.cmd('enew')
    end
  end
  M.state.win = nil
end

--- Open the chat window, or close it when it is open.
function M.toggle()
  local win = M.state.win
  if win and api.nvim_win_is_valid(win) then
    M.close()
  else
    M.open()
  end
end

--- Start an empty transcript (new or resumed session).
function M.reset()
  local buf = M.buffer()
  M.state.renderer = require('dsh.render').new(buf, { cwd = session_cwd() })
end

--- Keep windows whose cursor is in the input area scrolled to the newest output.
local function follow()
  if M.state.follow_pending then
    return
  end
  M.state.follow_pending = true
  vim.schedule(function()
    M.state.follow_pending = false
    local buf, renderer = M.state.buf, M.state.renderer
    if not (buf and renderer and api.nvim_buf_is_valid(buf)) then
      return
    end
    local boundary = renderer:boundary_row()
    for _, win in ipairs(vim.fn.win_findbuf(buf)) do
      local cursor = api.nvim_win_get_cursor(win)
      if cursor[1] - 1 >= boundary then
        api.nvim_win_call(win, function()
          vim.cmd('normal! zb')
        end)
        -- `:normal` moves a cursor past the line's end (Insert mode) back onto its last byte
        pcall(api.nvim_win_set_cursor, win, cursor)
      end
    end
  end)
end

--- Render a user prompt.
---@param blocks table[]
function M.user(blocks)
  M.renderer():user(blocks, { echo = true })
  follow()
end

--- Render one session update.
---@param update table
function M.update(update)
  local renderer = M.renderer()
  local reasoning = update.kind == 'agent_thought_chunk' or renderer.mode == 'thought'
  renderer:update(update)
  if reasoning and api.nvim_get_mode().mode:match('^[iR]') then
    -- Neovim leaves expression folds alone in Insert mode: fold the reasoning now
    for _, win in ipairs(vim.fn.win_findbuf(renderer.buf)) do
      require('dsh.fold').refresh(win)
    end
  end
  follow()
end

--- The merged data of the tool call `id` in the transcript.
---@param id string
---@return table?
function M.tool(id)
  local entry = M.renderer().tools[id]
  return entry and entry.data
end

--- Close the turn in the transcript.
---@param result? table
---@param err? table|string
function M.finish(result, err)
  M.renderer():finish(result, err and (type(err) == 'table' and err or { message = tostring(err) }))
  follow()
end

---@param err table|string
function M.error(err)
  M.renderer():error(err)
  follow()
end

---@param text string
function M.notice(text)
  M.renderer():notice(text)
  follow()
end

--- Send what is typed in the input area.
function M.send()
  local renderer = M.renderer()
  local text = vim.trim(table.concat(renderer:input_lines(), '\n'))
  if text == '' then
    return
  end
  if require('dsh.client').state.turn then
    vim.notify('dsh: a turn is running; cancel it first', vim.log.levels.WARN)
    return
  end
  renderer:clear_input()
  require('dsh.client').ask(text, { bufnr = vim.fn.bufnr('#') > 0 and vim.fn.bufnr('#') or nil })
end

--- Open the location under the cursor in another window: a tool call's (its first one), or
--- the one a location line under a tool call stands for.
---@return boolean jumped
function M.jump()
  local renderer = M.renderer()
  local row = api.nvim_win_get_cursor(0)[1] - 1
  local data = renderer:tool_at_row(row)
  local loc = renderer:location_at_row(row) or (data and require('dsh.present').location(data))
  if not loc then
    return false
  end
  local chat_win = api.nvim_get_current_win()
  vim.cmd('wincmd p')
  if api.nvim_get_current_win() == chat_win then
    vim.cmd('aboveleft vsplit')
  end
  vim.cmd.edit(vim.fn.fnameescape(loc.path))
  if loc.line then
    pcall(api.nvim_win_set_cursor, 0, { loc.line, 0 })
  end
  return true
end

--- `<CR>` in normal mode: jump from a tool-call line, otherwise send the input.
function M.enter()
  local row = api.nvim_win_get_cursor(0)[1] - 1
  if row < M.renderer():boundary_row() then
    M.jump()
  else
    M.send()
  end
end

return M
