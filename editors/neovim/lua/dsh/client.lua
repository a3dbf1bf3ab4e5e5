--- The session side of the plugin: the dsh LSP client, the active session and its turn.
---
--- One chat is bound to one client and one session at a time (`M.state`). Requests go out
--- with `client:request`; the `dsh/session/update` handler feeds the chat and the running
--- turn's `on_update` callback; the `dsh/prompt` answer closes the turn and calls
--- `on_done`. Everything is asynchronous: functions take callbacks and never block.

local api = vim.api

local M = {}

---@class dsh.Turn
---@field session_id string
---@field request_id? integer
---@field on_update? fun(update: table)
---@field on_done? fun(result: table)
---@field cancelled boolean
---@field echoed? boolean The server has echoed this turn's prompt as `user_message`.

---@class dsh.AskOptions
---@field on_update? fun(update: table) Every session update of the turn.
---@field on_done? fun(result: table) The `dsh/prompt` result, or `{error = …}`.
---@field bufnr? integer Buffer `#buffer`, `#diagnostics` and the range refer to.
---@field line1? integer First line of the attached range (1-based).
---@field line2? integer Last line of the attached range (1-based).

---@class dsh.State
---@field client_id? integer
---@field session_id? string
---@field turn? dsh.Turn
---@field current_tool? string toolCallId of the tool call now running (undo grouping)
---@field last_error? string
M.state = {}

---@param msg string
---@param level? integer
function M.notify(msg, level)
  vim.notify('dsh: ' .. msg, level or vim.log.levels.INFO)
end

---@param err table|string
---@return string
function M.error_text(err)
  if type(err) ~= 'table' then
    return tostring(err)
  end
  local code = type(err.data) == 'table' and err.data.code
  return (err.message or vim.inspect(err)) .. (code and (' [' .. code .. ']') or '')
end

--- Remember `err` for `:checkhealth dsh`.
---@param err table|string
function M.record_error(err)
  M.state.last_error = os.date('%Y-%m-%d %H:%M:%S') .. ' ' .. M.error_text(err)
end

--- The running dsh client the chat uses, if any.
---@return vim.lsp.Client?
function M.get()
  local id = M.state.client_id
  local client = id and vim.lsp.get_client_by_id(id)
  if client and not client:is_stopped() then
    return client
  end
  local clients = vim.lsp.get_clients({ name = 'dsh', bufnr = api.nvim_get_current_buf() })
  if #clients == 0 then
    clients = vim.lsp.get_clients({ name = 'dsh' })
  end
  return clients[1]
end

--- `path` relative to the workspace root of the chat's client (else to the cwd).
---@param path string
---@return string
function M.relative(path)
  local client = M.get()
  local root = client and client.root_dir
  if root and path:sub(1, #root + 1) == root .. '/' then
    return path:sub(#root + 2)
  end
  return vim.fn.fnamemodify(path, ':.')
end

--- The workspace root for a new client: the current buffer's root, else the cwd.
---@return string
local function root_for_current()
  local markers = require('dsh.config').options.root_markers
  local bufnr = api.nvim_get_current_buf()
  local root = vim.bo[bufnr].buftype == '' and vim.fs.root(bufnr, markers) or nil
  return root or vim.fn.getcwd()
end

--- Call `cb(client)` with an initialized client, starting one when none runs;
--- `cb(nil, message)` when the server cannot be started or does not initialize in 20 s.
---@param cb fun(client?: vim.lsp.Client, err?: string)
function M.ensure(cb)
  local client = M.get()
  if not client then
    local config = vim.deepcopy(vim.lsp.config.dsh or {})
    if not config.cmd then
      return cb(nil, 'no `dsh` LSP config found (is editors/neovim on the runtimepath?)')
    end
    config.root_dir = root_for_current()
    local id = vim.lsp.start(config, { attach = false, silent = true })
    client = id and vim.lsp.get_client_by_id(id)
    if not client then
      return cb(nil, 'could not start the server: ' .. table.concat(config.cmd, ' '))
    end
  end
  M.state.client_id = client.id
  require('dsh.poll').poll(20000, function()
    return client.initialized or client:is_stopped()
  end, function()
    if client.initialized then
      cb(client)
    else
      cb(nil, 'the server did not initialize (see :checkhealth dsh and :LspLog)')
    end
  end, 10)
end

--- Send a request to the chat's client; `cb(err, result)`.
---@param method string
---@param params table
---@param cb fun(err?: table|string, result?: any)
---@return integer? request_id
function M.request(method, params, cb)
  local client = M.get()
  if not client then
    cb('the dsh server is not running')
    return
  end
  local ok, id = client:request(method, params, function(err, result)
    cb(err, result)
  end)
  if not ok then
    cb('the dsh server has shut down')
    return
  end
  return id
end

--- Call `cb(session_id)` with the active session, creating one when there is none.
---@param client vim.lsp.Client
---@param cb fun(session_id?: string, err?: string)
function M.ensure_session(client, cb)
  if M.state.session_id then
    return cb(M.state.session_id)
  end
  M.request('dsh/session/new', { cwd = client.root_dir }, function(err, result)
    if err or type(result) ~= 'table' or not result.sessionId then
      return cb(nil, 'could not create a session: ' .. M.error_text(err or 'no sessionId'))
    end
    M.state.session_id = result.sessionId
    cb(result.sessionId)
  end)
end

---@param on_done? fun(result: table)
---@param message string
local function fail(on_done, message)
  M.record_error(message)
  M.notify(message, vim.log.levels.ERROR)
  require('dsh.chat').error(message)
  if on_done then
    on_done({ error = { message = message } })
  end
end

--- Send a prompt on the active session (created on demand).
--- `prompt` is text (with `#buffer` / `#diagnostics`) or a list of ContentBlocks.
---@param prompt string|table[]
---@param opts? dsh.AskOptions
function M.ask(prompt, opts)
  opts = opts or {}
  if M.state.turn then
    return fail(opts.on_done, 'a turn is already running (cancel it with :DshCancel)')
  end
  local context = require('dsh.context')
  local draft = type(prompt) == 'string' and context.collect(prompt, opts) or nil
  M.ensure(function(client, err)
    if not client then
      return fail(opts.on_done, err or 'no server')
    end
    M.ensure_session(client, function(session_id, serr)
      if not session_id then
        return fail(opts.on_done, serr or 'no session')
      end
      local blocks, bufs = prompt, {}
      if draft then
        blocks, bufs = context.blocks(draft, client.offset_encoding)
      end
      if #blocks == 0 then
        return fail(opts.on_done, 'empty prompt')
      end
      for _, bufnr in ipairs(bufs) do
        if not vim.lsp.buf_is_attached(bufnr, client.id) then
          vim.lsp.buf_attach_client(bufnr, client.id)
        end
      end
      local chat = require('dsh.chat')
      chat.user(blocks)
      require('dsh.edits').begin_turn()
      ---@type dsh.Turn
      local turn = {
        session_id = session_id,
        on_update = opts.on_update,
        on_done = opts.on_done,
        cancelled = false,
      }
      M.state.turn = turn
      turn.request_id = M.request(
        'dsh/prompt',
        { sessionId = session_id, prompt = blocks },
        function(perr, result)
          if M.state.turn == turn then
            M.state.turn = nil
          end
          M.state.current_tool = nil
          require('dsh.permission').cancel_all()
          if perr then
            M.record_error(perr)
          end
          chat.finish(result, perr)
          if turn.on_done then
            turn.on_done(perr and { error = perr } or result)
          end
        end
      )
    end)
  end)
end

--- Cancel the running turn (`dsh/cancel`); the chat shows "cancelled" when it stops.
---@return boolean sent
function M.cancel()
  local turn = M.state.turn
  local client = M.get()
  if not turn or not client then
    M.notify('no turn is running')
    return false
  end
  turn.cancelled = true
  client:notify('dsh/cancel', { sessionId = turn.session_id })
  return true
end

--- Handler for `dsh/session/update`.
---@param _ any
---@param params table {sessionId, update}
function M.on_update(_, params)
  local update = params and params.update
  if type(update) ~= 'table' then
    return
  end
  local card = update.kind == 'tool_call' and require('dsh.present').tool_card(update) or nil
  if card and card.status == 'in_progress' then
    M.state.current_tool = card.toolCallId
  end
  if params.sessionId == M.state.session_id then
    local chat = require('dsh.chat')
    chat.update(update)
    if card and card.toolCallId then
      require('dsh.edits').record_tool(chat.tool(card.toolCallId) or card)
    end
  end
  local turn = M.state.turn
  if turn and params.sessionId == turn.session_id then
    if update.kind == 'user_message' then
      turn.echoed = true
    elseif not turn.echoed and require('dsh.present').trails_previous_turn(update) then
      return -- the tail of the previous (cancelled) turn
    end
  end
  if turn and turn.on_update and params.sessionId == turn.session_id then
    local ok, err = pcall(turn.on_update, update)
    if not ok then
      M.notify('on_update failed: ' .. tostring(err), vim.log.levels.ERROR)
    end
  end
end

return M
