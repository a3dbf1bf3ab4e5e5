--- Renders `dsh/session/update` notifications into a chat buffer, incrementally.
---
--- The buffer holds a title line, the transcript, and an input area at the bottom. The
--- transcript ends just above the *boundary* extmark (left gravity, column 0 of the first
--- input line), so the renderer always inserts at the end of the last transcript line and
--- never touches the input. Streaming chunks append to the current line (one
--- `nvim_buf_set_text` each); a tool call is one line that its later upserts rewrite in
--- place, followed by one indented line per location when it lists several (the editor's
--- diagnostics, references, search matches; at most `M.max_location_lines`); nothing ever
--- redraws the whole buffer. Reasoning is a range extmark that dims its
--- lines and drives the fold expression (`dsh.fold`).
---
--- Pure with respect to windows: the chat module owns windows, keymaps and scrolling.

local api = vim.api
local present = require('dsh.present')

local M = {}

M.ns = {
  boundary = api.nvim_create_namespace('dsh.chat.boundary'),
  reasoning = api.nvim_create_namespace('dsh.chat.reasoning'),
  tool = api.nvim_create_namespace('dsh.chat.tool'),
  hl = api.nvim_create_namespace('dsh.chat.hl'),
}

M.reasoning_header = '▸ reasoning'

--- Location lines shown under a tool call that lists several (the rest are counted).
M.max_location_lines = 10

local STATUS_HL = {
  pending = 'DshToolPending',
  in_progress = 'DshToolRunning',
  completed = 'DshToolDone',
  failed = 'DshToolFailed',
  cancelled = 'DshToolCancelled',
}

---@class dsh.Renderer
---@field buf integer
---@field icons table<string,string>
---@field cwd? string Paths under it are shown relative.
---@field mode? "text"|"thought"|"tool"|"block"
---@field col integer Byte length of the last transcript line while streaming.
---@field tools table<string, {mark: integer, hl: integer, data: table}>
---@field tool_at table<integer, string> Tool extmark id → toolCallId.
---@field loc_at table<integer, {path: string, line?: integer}> Location-line extmark → location.
---@field reasoning_mark? integer The open reasoning range.
---@field turn_open boolean
---@field footer_done boolean
---@field usage? table
---@field expect_echo boolean
local Renderer = {}
Renderer.__index = Renderer

--- Start rendering into `buf`, replacing its contents with a title line and an empty input.
---@param buf integer
---@param opts? {icons?: table<string,string>, cwd?: string, title?: string, separator?: string}
---@return dsh.Renderer
function M.new(buf, opts)
  opts = opts or {}
  local self = setmetatable({
    buf = buf,
    icons = opts.icons or require('dsh.config').options.icons,
    cwd = opts.cwd,
    mode = nil,
    col = 0,
    tools = {},
    tool_at = {},
    loc_at = {},
    turn_open = false,
    footer_done = false,
    expect_echo = false,
  }, Renderer)
  for _, ns in pairs(M.ns) do
    api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  end
  api.nvim_buf_set_lines(buf, 0, -1, false, { '# ' .. (opts.title or 'dsh'), '' })
  api.nvim_buf_set_extmark(buf, M.ns.hl, 0, 0, { end_col = #'# ', hl_group = 'DshAgent' })
  self.boundary = api.nvim_buf_set_extmark(buf, M.ns.boundary, 1, 0, {
    right_gravity = false,
    virt_lines = { { { opts.separator or M.separator(), 'DshPromptSeparator' } } },
    virt_lines_above = true,
  })
  return self
end

--- The virtual line drawn above the input area.
---@return string
function M.separator()
  local keys = require('dsh.config').options.keymaps
  return string.format(
    '──── prompt · %s send · %s cancel ────',
    keys.send,
    keys.cancel
  )
end

--- First row of the input area (0-based); the transcript is rows 0 .. boundary-1.
---@return integer
function Renderer:boundary_row()
  local pos = api.nvim_buf_get_extmark_by_id(self.buf, M.ns.boundary, self.boundary, {})
  local row = pos[1]
  if row == nil or row < 1 then
    -- The input line was deleted together with the transcript: start a fresh input line.
    local count = api.nvim_buf_line_count(self.buf)
    api.nvim_buf_set_lines(self.buf, count, count, false, { '' })
    self.boundary = api.nvim_buf_set_extmark(self.buf, M.ns.boundary, count, 0, {
      id = self.boundary,
      right_gravity = false,
      virt_lines = { { { M.separator(), 'DshPromptSeparator' } } },
      virt_lines_above = true,
    })
    row = count
  end
  return row
end

--- The input area's text (lines from the boundary to the end).
---@return string[]
function Renderer:input_lines()
  return api.nvim_buf_get_lines(self.buf, self:boundary_row(), -1, false)
end

--- Empty the input area.
function Renderer:clear_input()
  api.nvim_buf_set_lines(self.buf, self:boundary_row(), -1, false, { '' })
end

-- Low-level writes ----------------------------------------------------------

--- Append whole lines after the last transcript line; returns the row of the first one.
---@param lines string[]
---@return integer
function Renderer:_append_lines(lines)
  local last = self:boundary_row() - 1
  local len = #api.nvim_buf_get_lines(self.buf, last, last + 1, true)[1]
  local parts = { '' }
  vim.list_extend(parts, lines)
  api.nvim_buf_set_text(self.buf, last, len, last, len, parts)
  self.col = #lines[#lines]
  return last + 1
end

--- Append `text` (may contain newlines) to the last transcript line.
---@param text string
function Renderer:_stream(text)
  if text == '' then
    return
  end
  local last = self:boundary_row() - 1
  local parts = vim.split(text, '\n', { plain = true })
  api.nvim_buf_set_text(self.buf, last, self.col, last, self.col, parts)
  if #parts == 1 then
    self.col = self.col + #parts[1]
  else
    self.col = #parts[#parts]
  end
end

---@param row integer
---@param col integer
---@param end_col integer
---@param group string
---@param id? integer
---@return integer
function Renderer:_hl(row, col, end_col, group, id)
  return api.nvim_buf_set_extmark(self.buf, M.ns.hl, row, col, {
    id = id,
    end_row = row,
    end_col = end_col,
    hl_group = group,
  })
end

-- Segments --------------------------------------------------------------------

function Renderer:_close_reasoning()
  if not self.reasoning_mark then
    return
  end
  local mark = api.nvim_buf_get_extmark_by_id(self.buf, M.ns.reasoning, self.reasoning_mark, {})
  local last = self:boundary_row() - 1
  api.nvim_buf_set_extmark(self.buf, M.ns.reasoning, mark[1], 0, {
    id = self.reasoning_mark,
    end_row = last,
    end_col = self.col,
    end_right_gravity = false,
    hl_group = 'DshReasoning',
    hl_eol = true,
  })
  self.reasoning_mark = nil
end

---@param mode "text"|"thought"|"tool"|"block"
function Renderer:_enter(mode)
  if self.mode == 'thought' and mode ~= 'thought' then
    self:_close_reasoning()
  end
  self.mode = mode
end

---@param kind "text"|"thought"
---@param text string
function Renderer:_chunk(kind, text)
  self:_open_turn()
  if self.mode ~= kind then
    self:_enter(kind)
    if kind == 'thought' then
      local row = self:_append_lines({ M.reasoning_header, '' })
      self.reasoning_mark = api.nvim_buf_set_extmark(self.buf, M.ns.reasoning, row, 0, {
        end_row = row + 1,
        end_col = 0,
        end_right_gravity = true,
        hl_group = 'DshReasoning',
        hl_eol = true,
      })
    else
      self:_append_lines({ '' })
    end
  end
  self:_stream(text)
end

function Renderer:_open_turn()
  if not self.turn_open then
    self.turn_open = true
    self.footer_done = false
    self.error_shown = false
    self.usage = nil
    self:_enter('block')
    local row = self:_append_lines({ '', '## dsh' })
    self:_hl(row + 1, 0, #'## dsh', 'DshAgent')
  end
end

-- Public rendering ------------------------------------------------------------

--- Render a user prompt (content blocks) and open a new turn.
---@param content table[] ContentBlock list
---@param opts? {echo?: boolean} `echo`: the server will send this prompt back as a `user_message`.
function Renderer:user(content, opts)
  self:_end_turn_silently()
  self:_enter('block')
  local lines = { '', '## You' }
  local attachments = {}
  for _, block in ipairs(content or {}) do
    if block.type == 'text' then
      vim.list_extend(lines, vim.split(block.text or '', '\n', { plain = true }))
    elseif block.type == 'resource_link' then
      attachments[#attachments + 1] = '📎 ' .. self:_link_label(block)
    end
  end
  local first = self:_append_lines(lines)
  self:_hl(first + 1, 0, #'## You', 'DshUser')
  if #attachments > 0 then
    local row = self:_append_lines(attachments)
    for i = 0, #attachments - 1 do
      self:_hl(row + i, 0, #attachments[i + 1], 'DshAttachment')
    end
  end
  self.expect_echo = opts ~= nil and opts.echo == true
  self.turn_open = false
  self:_open_turn()
end

---@param block table resource_link
---@return string
function Renderer:_link_label(block)
  local path = block.uri and vim.startswith(block.uri, 'file:') and vim.uri_to_fname(block.uri)
    or block.uri
    or '?'
  local label = self:_relative(path)
  local range = block.range
  if type(range) == 'table' and range.start then
    local s, e = range.start.line + 1, range['end'].line + 1
    if range['end'].character == 0 and e > s then
      e = e - 1
    end
    label = label .. ':' .. s .. (e ~= s and ('-' .. e) or '')
  end
  return label
end

---@param path string
---@return string
function Renderer:_relative(path)
  if self.cwd and path:sub(1, #self.cwd + 1) == self.cwd .. '/' then
    return path:sub(#self.cwd + 2)
  end
  return path
end

--- Render one `update` (the `update` field of `dsh/session/update`).
---@param u table
function Renderer:update(u)
  local kind = u.kind
  if self.expect_echo and present.trails_previous_turn(u) then
    return
  end
  if kind == 'agent_message_chunk' then
    self:_chunk('text', u.text or '')
  elseif kind == 'agent_thought_chunk' then
    self:_chunk('thought', u.text or '')
  elseif kind == 'tool_call' then
    local card = present.tool_card(u)
    if card.terminal then
      card = require('dsh.agent_view').live_card(card)
    end
    self:_tool(card)
  elseif kind == 'user_message' then
    if self.expect_echo then
      self.expect_echo = false
    else
      self:user(u.content or {})
    end
  elseif kind == 'usage_update' then
    self:_add_usage(u)
  elseif kind == 'state_update' then
    if u.state == 'idle' and self.turn_open then
      self:_footer({ stopReason = u.stopReason })
      if type(u.error) == 'table' then
        self:error({
          message = u.error.message or 'the turn failed',
          data = { code = u.error.code },
        })
        self.error_shown = true
      end
    end
  elseif kind == 'plan_update' then
    self:_plan(u.entries or {})
  elseif kind == 'compaction_update' or kind == 'instructions_update' then
    local text = require('dsh.agent_view').notice_text(u)
    if text then
      self:notice(text)
    end
  end
end

---@param u table
function Renderer:_add_usage(u)
  local acc = self.usage
    or { inputTokens = 0, outputTokens = 0, cacheReadTokens = 0, reasoningTokens = 0 }
  for _, key in ipairs({ 'inputTokens', 'outputTokens', 'cacheReadTokens', 'reasoningTokens' }) do
    if type(u[key]) == 'number' then
      acc[key] = acc[key] + u[key]
    end
  end
  acc.used = type(u.used) == 'number' and u.used or acc.used
  acc.window = type(u.window) == 'number' and u.window or acc.window
  self.usage = acc
end

---@param entries table[]
function Renderer:_plan(entries)
  self:_open_turn()
  self:_enter('block')
  local marks = { completed = 'x', in_progress = '~' }
  local lines = {}
  for _, entry in ipairs(entries) do
    lines[#lines + 1] = string.format('- [%s] %s', marks[entry.status] or ' ', entry.content or '')
  end
  if #lines > 0 then
    self:_append_lines(lines)
  end
end

---@param data table merged tool call
---@return string line, integer icon_len, integer? loc_start, integer? loc_end
function Renderer:_tool_line(data)
  local status = data.status or 'pending'
  local icon = self.icons[status] or '?'
  local line = icon .. ' ' .. (data.title or data.name or 'tool')
  local loc = present.location(data)
  local loc_start, loc_end
  if loc then
    local label = self:_relative(loc.path) .. (loc.line and (':' .. loc.line) or '')
    line = line .. '  '
    loc_start = #line
    line = line .. label
    loc_end = #line
  end
  if status == 'failed' then
    local reason = present.first_text_line(data.content)
    if reason then
      line = line .. ' — ' .. reason
    end
  end
  return line, #icon, loc_start, loc_end
end

---@param u table tool_call upsert
function Renderer:_tool(u)
  local id = u.toolCallId
  if not id then
    return
  end
  local entry = self.tools[id]
  if entry then
    for k, v in pairs(u) do
      entry.data[k] = v
    end
    local pos = api.nvim_buf_get_extmark_by_id(self.buf, M.ns.tool, entry.mark, {})
    if pos[1] then
      local row = pos[1]
      local old = api.nvim_buf_get_lines(self.buf, row, row + 1, true)[1]
      local line, icon_len, loc_start, loc_end = self:_tool_line(entry.data)
      api.nvim_buf_set_text(self.buf, row, 0, row, #old, { line })
      if row == self:boundary_row() - 1 then
        self.col = #line
      end
      self:_tool_hl(entry, row, icon_len, loc_start, loc_end)
      self:_tool_locations(entry, row)
    end
    return
  end
  self:_open_turn()
  self:_enter('tool')
  local data = vim.deepcopy(u)
  local line, icon_len, loc_start, loc_end = self:_tool_line(data)
  local row = self:_append_lines({ line })
  entry = {
    data = data,
    mark = api.nvim_buf_set_extmark(self.buf, M.ns.tool, row, 0, { right_gravity = false }),
  }
  self.tools[id] = entry
  self.tool_at[entry.mark] = id
  self:_tool_hl(entry, row, icon_len, loc_start, loc_end)
  self:_tool_locations(entry, row)
end

--- The location lines of a tool call listing several locations: `{text, loc}` each.
---@param data table
---@return {text: string, loc?: {path: string, line?: integer}}[]
function Renderer:_location_lines(data)
  local locs = present.locations(data)
  if #locs < 2 then
    return {}
  end
  local out = {}
  for i = 1, math.min(#locs, M.max_location_lines) do
    local loc = locs[i]
    out[i] = {
      text = '    ' .. self:_relative(loc.path) .. (loc.line and (':' .. loc.line) or ''),
      loc = loc,
    }
  end
  if #locs > M.max_location_lines then
    out[#out + 1] = { text = string.format('    … %d more', #locs - M.max_location_lines) }
  end
  return out
end

--- (Re)write the location lines below the tool line at `row` when they changed.
---@param entry table
---@param row integer
function Renderer:_tool_locations(entry, row)
  local lines = self:_location_lines(entry.data)
  local old = entry.loc_lines or {}
  local texts = vim.tbl_map(function(l)
    return l.text
  end, lines)
  if vim.deep_equal(texts, old) then
    return
  end
  for _, mark in ipairs(entry.loc_marks or {}) do
    self.loc_at[mark] = nil
    api.nvim_buf_del_extmark(self.buf, M.ns.tool, mark)
  end
  for _, mark in ipairs(entry.loc_hls or {}) do
    api.nvim_buf_del_extmark(self.buf, M.ns.hl, mark)
  end
  local head = api.nvim_buf_get_lines(self.buf, row, row + 1, true)[1]
  local last_row = row + #old
  local last_len = #old > 0 and #old[#old] or #head
  local was_last = last_row == self:boundary_row() - 1
  local parts = { '' }
  vim.list_extend(parts, texts)
  if #texts == 0 then
    parts = { '' }
  end
  api.nvim_buf_set_text(self.buf, row, #head, last_row, last_len, parts)
  entry.loc_lines, entry.loc_marks, entry.loc_hls = texts, {}, {}
  for i, l in ipairs(lines) do
    local r = row + i
    local mark = api.nvim_buf_set_extmark(self.buf, M.ns.tool, r, 0, { right_gravity = false })
    entry.loc_marks[i] = mark
    self.loc_at[mark] = l.loc
    if l.loc then
      entry.loc_hls[#entry.loc_hls + 1] = self:_hl(r, 4, #l.text, 'DshLocation')
    end
  end
  if was_last then
    self.col = #texts > 0 and #texts[#texts] or #head
  end
end

function Renderer:_tool_hl(entry, row, icon_len, loc_start, loc_end)
  local group = STATUS_HL[entry.data.status or 'pending'] or 'DshToolPending'
  entry.hl = self:_hl(row, 0, icon_len, group, entry.hl)
  if loc_start then
    entry.loc_hl = self:_hl(row, loc_start, loc_end, 'DshLocation', entry.loc_hl)
  elseif entry.loc_hl then
    api.nvim_buf_del_extmark(self.buf, M.ns.hl, entry.loc_hl)
    entry.loc_hl = nil
  end
end

--- The location a location line (under a tool call) at `row` stands for, if any.
---@param row integer 0-based
---@return {path: string, line?: integer}?
function Renderer:location_at_row(row)
  local marks = api.nvim_buf_get_extmarks(self.buf, M.ns.tool, { row, 0 }, { row, 0 }, {})
  for _, mark in ipairs(marks) do
    if self.loc_at[mark[1]] then
      return self.loc_at[mark[1]]
    end
  end
end

--- The tool call whose line is `row`, if any.
---@param row integer 0-based
---@return table? data
function Renderer:tool_at_row(row)
  local marks = api.nvim_buf_get_extmarks(self.buf, M.ns.tool, { row, 0 }, { row, 0 }, {})
  for _, mark in ipairs(marks) do
    local id = self.tool_at[mark[1]]
    if id then
      return self.tools[id].data
    end
  end
end

---@param result table {stopReason?, usage?}
function Renderer:_footer(result)
  self:_enter('block')
  self.footer_done = true
  self.turn_open = false
  local usage = result.usage or self.usage
  local stop = result.stopReason
  if stop == 'cancelled' then
    local row = self:_append_lines({ '⊘ cancelled' })
    self:_hl(row, 0, #'⊘ cancelled', 'DshCancelled')
  elseif stop and stop ~= 'end_turn' then
    local text = 'stopped: ' .. stop
    local row = self:_append_lines({ text })
    self:_hl(row, 0, #text, 'DshCancelled')
  end
  if usage then
    local text = present.usage_text(usage)
    local row = self:_append_lines({ text })
    self:_hl(row, 0, #text, 'DshUsage')
  end
end

--- Close the turn from the `dsh/prompt` answer (`result`) or its error (`err`).
--- The footer is written once per turn (a `state_update` idle may have written it already).
---@param result? table
---@param err? table {code, message, data?}
function Renderer:finish(result, err)
  self.expect_echo = false
  if not self.footer_done then
    self:_footer(result or {})
  end
  if err and not self.error_shown then
    self:error(err)
  end
  self.error_shown = false
end

--- Render an error line.
---@param err table|string
function Renderer:error(err)
  self:_enter('block')
  local message = type(err) == 'table' and (err.message or vim.inspect(err)) or tostring(err)
  local code = type(err) == 'table' and type(err.data) == 'table' and err.data.code
  local text = '✗ ' .. message:gsub('\n', ' ') .. (code and (' [' .. code .. ']') or '')
  local row = self:_append_lines({ text })
  self:_hl(row, 0, #text, 'DshError')
end

--- Render a one-line notice (e.g. "resumed session …").
---@param text string
---@param group? string
function Renderer:notice(text, group)
  self:_enter('block')
  local row = self:_append_lines({ text })
  self:_hl(row, 0, #text, group or 'DshUsage')
end

function Renderer:_end_turn_silently()
  if self.mode == 'thought' then
    self:_close_reasoning()
  end
  self.turn_open = false
end

return M
