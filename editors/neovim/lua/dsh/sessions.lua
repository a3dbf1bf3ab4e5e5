--- Sessions: list them, pick one, resume it (replaying its history), start a new one.
---
--- Works on the chat's client and active session (`dsh.client`, here `core`). The chat is
--- reset before a resume because the history replay arrives before the resume answer.

local core = require('dsh.client')

local M = {}

--- Run `fn(lsp_client)` with an initialized client, else `cb(nil, err)`.
---@param cb fun(result?: any, err?: string)
---@param fn fun(lsp_client: vim.lsp.Client)
local function with_client(cb, fn)
  core.ensure(function(lsp_client, err)
    if not lsp_client then
      return cb(nil, err)
    end
    fn(lsp_client)
  end)
end

--- `with_client`, refused while a turn runs.
local function with_idle_client(cb, fn)
  if core.state.turn then
    return cb(nil, 'a turn is running')
  end
  with_client(cb, fn)
end

--- List the server's sessions, newest first: `cb(sessions)` or `cb(nil, err)`.
---@param cb fun(sessions?: table[], err?: string)
function M.list(cb)
  with_client(cb, function()
    core.request('dsh/session/list', vim.empty_dict(), function(err, result)
      if err then
        return cb(nil, core.error_text(err))
      end
      cb(type(result) == 'table' and result.sessions or {})
    end)
  end)
end

--- Make `session_id` the active session: reset the chat, replay its history, then `cb`.
---@param session_id string
---@param cb? fun(result?: table, err?: string)
function M.resume(session_id, cb)
  cb = cb or function() end
  with_idle_client(cb, function()
    local previous = core.state.session_id
    core.state.session_id = session_id
    local chat = require('dsh.chat')
    chat.reset()
    core.request('dsh/session/resume', { sessionId = session_id }, function(rerr, result)
      if rerr then
        core.state.session_id = previous
        core.record_error(rerr)
        chat.error(rerr)
        return cb(nil, core.error_text(rerr))
      end
      chat.notice('resumed session ' .. session_id)
      cb(result)
    end)
  end)
end

--- Start a fresh session and clear the chat; `cb(session_id)` or `cb(nil, err)`.
---@param cb? fun(session_id?: string, err?: string)
function M.new_session(cb)
  cb = cb or function() end
  with_idle_client(cb, function(lsp_client)
    core.state.session_id = nil
    core.ensure_session(lsp_client, function(session_id, serr)
      if session_id then
        require('dsh.chat').reset()
      end
      cb(session_id, serr)
    end)
  end)
end

--- A session's label for pickers: title (or id) and last update time.
---@param session table
---@return string
function M.session_label(session)
  local when = session.updatedAt or session.createdAt
  if type(when) == 'number' then
    when = os.date('%Y-%m-%d %H:%M', when > 1e11 and math.floor(when / 1000) or when)
  elseif type(when) == 'string' then
    when = when:sub(1, 16):gsub('T', ' ')
  else
    when = ''
  end
  local title = session.title
  if type(title) ~= 'string' or title == '' then
    title = session.sessionId
  end
  return string.format('%s  %s', when, title)
end

--- Pick a session with `vim.ui.select`, open the chat and resume it there.
---@param cb? fun(result?: table, err?: string)
function M.pick(cb)
  M.list(function(sessions, err)
    if not sessions then
      core.notify(err or 'cannot list sessions', vim.log.levels.ERROR)
      return cb and cb(nil, err)
    end
    if #sessions == 0 then
      core.notify('no sessions yet')
      return cb and cb(nil, 'no sessions')
    end
    vim.ui.select(sessions, {
      prompt = 'dsh: resume session',
      kind = 'dsh.session',
      format_item = M.session_label,
    }, function(choice)
      if choice then
        -- Show the replay: open the chat (the focus stays where the user is).
        local prev = vim.api.nvim_get_current_win()
        require('dsh.chat').open()
        if vim.api.nvim_win_is_valid(prev) then
          vim.api.nvim_set_current_win(prev)
        end
        M.resume(choice.sessionId, cb)
      elseif cb then
        cb(nil, 'no session chosen')
      end
    end)
  end)
end

return M
