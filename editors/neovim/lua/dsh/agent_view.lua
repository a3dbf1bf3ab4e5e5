--- What the chat shows of the agent's own bookkeeping: a running command's live output,
--- the context meter, compactions and project instructions; and `:DshCompact`.

local M = {}

---@param n number
---@return string
local function short(n)
  if n >= 1000 then
    local text = string.format('%.1fk', n / 1000):gsub('%.0k$', 'k')
    return text
  end
  return tostring(math.floor(n))
end

--- A live `tool_call` card of a running command (`toolCall.terminal` set): its content is
--- the output tail; the card line shows the last non-empty output line.
---@param card table
---@return table
function M.live_card(card)
  local tail = ''
  for _, item in ipairs(card.content or {}) do
    if item.type == 'text' and type(item.text) == 'string' then
      tail = item.text
    end
  end
  local last = ''
  for line in tail:gmatch('[^\n]+') do
    if line:match('%S') then
      last = line
    end
  end
  local copy = vim.deepcopy(card)
  copy.content = { { type = 'text', text = last } }
  return copy
end

--- "context: 12k/128k (9%)" from a usage with `used` and `window`, or nil.
---@param usage table
---@return string?
function M.meter_text(usage)
  if type(usage.used) ~= 'number' or type(usage.window) ~= 'number' or usage.window <= 0 then
    return nil
  end
  local pct = math.floor(100 * usage.used / usage.window + 0.5)
  return string.format('context: %s/%s (%d%%)', short(usage.used), short(usage.window), pct)
end

--- The notice line of a `compaction_update` or `instructions_update`, or nil.
---@param u table
---@return string?
function M.notice_text(u)
  if u.kind == 'compaction_update' then
    if u.state == 'queued' then
      return '⋯ compaction queued: it runs when the current step ends'
    elseif u.state == 'started' then
      return '⋯ compacting the conversation'
    elseif u.state == 'completed' then
      return string.format(
        '⋯ conversation compacted: ~%s → ~%s tokens',
        short(u.tokensBefore or 0),
        short(u.tokensAfter or 0)
      )
    elseif u.state == 'failed' then
      return '✗ compaction failed: ' .. tostring(u.message or 'unknown error')
    end
  elseif u.kind == 'instructions_update' then
    local sources = type(u.sources) == 'table' and u.sources or {}
    if #sources > 0 then
      return 'following ' .. table.concat(sources, ', ')
    end
  end
  return nil
end

--- `:DshCompact`: summarize the current session's history now.
function M.compact()
  local client = require('dsh.client')
  local session_id = client.state.session_id
  if not session_id then
    client.notify('no session yet')
    return
  end
  client.request('dsh/session/compact', { sessionId = session_id }, function(err, result)
    if err then
      client.notify(client.error_text(err), vim.log.levels.WARN)
    elseif result then
      client.notify(
        string.format(
          'compacted: ~%s → ~%s tokens',
          short(result.tokensBefore or 0),
          short(result.tokensAfter or 0)
        )
      )
    end
  end)
end

return M
