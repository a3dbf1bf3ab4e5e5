--- Presentation helpers of the chat: what a session update says, as text (pure).
---
--- No buffer access: the renderer (`dsh.render`) and the other modules ask these how to
--- read an update (its tool card, location, failure reason, usage text).

local M = {}

--- Whether `u`, arriving after a new prompt was sent but before the server echoed it as
--- `user_message`, is the tail of the previous turn (a cancelled turn's prompt is answered
--- before its last updates arrive).
---@param u table
---@return boolean
function M.trails_previous_turn(u)
  return (u.kind == 'state_update' and u.state == 'idle') or u.kind == 'usage_update'
end

--- The tool call card of a `tool_call` update: `update.toolCall` (the server nests it,
--- because `kind` names the update), or the update itself when flat.
---@param u table
---@return table
function M.tool_card(u)
  return type(u.toolCall) == 'table' and u.toolCall or u
end

--- The location a tool call points at: its first `locations` entry, else its first diff.
---@param data table
---@return {path: string, line?: integer}?
function M.location(data)
  if type(data.locations) == 'table' and data.locations[1] and data.locations[1].path then
    return { path = data.locations[1].path, line = tonumber(data.locations[1].line) }
  end
  for _, item in ipairs(type(data.content) == 'table' and data.content or {}) do
    if item.type == 'diff' and item.path then
      return { path = item.path }
    end
  end
end

--- Every location a tool call lists (`locations` entries with a path), in order.
---@param data table
---@return {path: string, line?: integer}[]
function M.locations(data)
  local out = {}
  for _, loc in ipairs(type(data.locations) == 'table' and data.locations or {}) do
    if type(loc) == 'table' and type(loc.path) == 'string' then
      out[#out + 1] = { path = loc.path, line = tonumber(loc.line) }
    end
  end
  return out
end

---@param content? table[]
---@return string?
function M.first_text_line(content)
  for _, item in ipairs(type(content) == 'table' and content or {}) do
    if item.type == 'text' and type(item.text) == 'string' and item.text ~= '' then
      return (item.text:gsub('\n.*', ''))
    end
  end
end

---@param n number
---@return string
local function thousands(n)
  local s = tostring(math.floor(n))
  local out = s:reverse():gsub('(%d%d%d)', '%1,'):reverse()
  return (out:gsub('^,', ''))
end

--- The usage line text: tokens in (cached share), out, reasoning.
---@param usage table {inputTokens, outputTokens, cacheReadTokens?, reasoningTokens?}
---@return string
function M.usage_text(usage)
  local input = usage.inputTokens or 0
  local cached = usage.cacheReadTokens or 0
  local total_in = input + cached
  local parts = { thousands(total_in) .. ' in' }
  if total_in > 0 then
    parts[1] = parts[1]
      .. string.format(' (%d%% cached)', math.floor(100 * cached / total_in + 0.5))
  end
  parts[#parts + 1] = thousands(usage.outputTokens or 0) .. ' out'
  if (usage.reasoningTokens or 0) > 0 then
    parts[#parts + 1] = thousands(usage.reasoningTokens) .. ' reasoning'
  end
  local meter = require('dsh.agent_view').meter_text(usage)
  return 'tokens: ' .. table.concat(parts, ' · ') .. (meter and (' · ' .. meter) or '')
end

return M
