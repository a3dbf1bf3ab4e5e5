-- End to end: the plugin, the real dsh-lsp server and the scripted model server.
-- pytest provides $DSH_SERVER_CMD (JSON list), $DSH_MODEL_URL, $DSH_WS (a workspace with
-- notes.txt = alpha/beta/gamma) and $DSH_SESSION_DIR, and checks what the model was sent.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')
local api = vim.api

local ORIGINAL = { 'alpha', 'beta', 'gamma' }

local function boot(opts, file)
  require('dsh').setup(vim.tbl_deep_extend('force', {
    cmd = vim.json.decode(vim.env.DSH_SERVER_CMD),
    model = { name = 'scripted', base_url = vim.env.DSH_MODEL_URL },
    session_dir = vim.env.DSH_SESSION_DIR,
    root_markers = { '.git' },
  }, opts or {}))
  vim.cmd.cd(vim.fn.fnameescape(vim.env.DSH_WS))
  vim.cmd.edit(file or 'notes.txt')
  local buf = api.nvim_get_current_buf()
  local client
  H.wait('the server to initialize', 20000, function()
    client = vim.lsp.get_clients({ name = 'dsh', bufnr = buf })[1]
    return (client ~= nil and client.initialized) or require('dsh.client').state.last_error ~= nil
  end)
  H.check('server running', client and client.initialized, require('dsh.client').state.last_error)
  H.results.data.server_info = client and client.server_info
  return client, buf
end

--- Ask and wait for the turn to end; returns {updates, done}.
local function ask(text, opts)
  opts = opts or {}
  local turn = { updates = {} }
  require('dsh').ask(text, {
    bufnr = opts.bufnr,
    on_update = function(u)
      turn.updates[#turn.updates + 1] = u
      if opts.on_update then
        opts.on_update(u, turn)
      end
    end,
    on_done = function(result)
      turn.done = result
    end,
  })
  H.wait('the turn "' .. text .. '" to end', opts.timeout or 20000, function()
    return turn.done ~= nil
  end)
  return turn
end

local function chat_lines()
  local r = require('dsh.chat').renderer()
  return api.nvim_buf_get_lines(r.buf, 0, r:boundary_row(), false)
end

local function tool_lines()
  local r = require('dsh.chat').renderer()
  local out = {}
  for _, entry in pairs(r.tools) do
    local row =
      api.nvim_buf_get_extmark_by_id(r.buf, require('dsh.render').ns.tool, entry.mark, {})[1]
    out[#out + 1] = { row = row, status = entry.data.status, title = entry.data.title }
  end
  table.sort(out, function(a, b)
    return a.row < b.row
  end)
  return out
end

local function disk(buf)
  return vim.fn.readfile(api.nvim_buf_get_name(buf))
end

local function record(turn)
  H.results.data.chat = chat_lines()
  H.results.data.done = turn and turn.done
  H.results.data.tools = tool_lines()
end

H.case('unsaved buffer is read and edited through the editor', function()
  local _, buf = boot()
  api.nvim_buf_set_lines(buf, 1, 2, false, { 'beta UNSAVED' })
  local turn = ask('Fix notes.txt')
  record(turn)
  H.eq('turn ended normally', turn.done and turn.done.stopReason, 'end_turn')
  H.eq('buffer edited', H.lines(buf), { 'alpha', 'beta EDITED', 'gamma' })
  H.check('buffer still modified', vim.bo[buf].modified)
  H.eq('disk untouched', disk(buf), ORIGINAL)
  local tools = tool_lines()
  H.eq(
    'two tool calls, both completed',
    vim.tbl_map(function(t)
      return t.status
    end, tools),
    { 'completed', 'completed' }
  )
  require('dsh').changes()
  local qf = vim.fn.getqflist()
  H.eq(
    'DshChanges lists notes.txt',
    #qf == 1 and api.nvim_buf_get_name(qf[1].bufnr),
    api.nvim_buf_get_name(buf)
  )
  api.nvim_buf_call(buf, function()
    vim.cmd('silent undo')
  end)
  H.eq('one undo step reverts the agent edit', H.lines(buf), { 'alpha', 'beta UNSAVED', 'gamma' })
end)

H.case('save after turn writes the edited buffer', function()
  local client, buf = boot({ edits = { save_after_turn = true } })
  local original = client.handlers['dsh/saveDocuments']
  local answers = {}
  client.handlers['dsh/saveDocuments'] = function(err, params, ctx)
    local result = original(err, params, ctx)
    answers[#answers + 1] = { uris = params.uris, saved = result.saved }
    return result
  end
  local turn = ask('Fix notes.txt')
  record(turn)
  H.eq('turn ended normally', turn.done and turn.done.stopReason, 'end_turn')
  -- The server asks once the turn has ended, which may be after the prompt's answer.
  H.wait('the saveDocuments request', 10000, function()
    return #answers > 0
  end)
  H.results.data.save_answers = answers
  local uri = vim.uri_from_bufnr(buf)
  H.eq('asked to save notes.txt, and saved it', answers[1], { uris = { uri }, saved = { uri } })
  H.eq('buffer edited', H.lines(buf), { 'alpha', 'beta EDITED', 'gamma' })
  H.eq('edit on disk', disk(buf), { 'alpha', 'beta EDITED', 'gamma' })
  H.eq('buffer not modified', vim.bo[buf].modified, false)
  api.nvim_buf_call(buf, function()
    vim.cmd('silent undo')
  end)
  H.eq('the saved edit is still one undo step', H.lines(buf), ORIGINAL)
end)

H.case('streamed answer lands in the chat buffer', function()
  boot()
  require('dsh').toggle()
  local turn = ask('Tell me a story')
  record(turn)
  local streamed = {}
  for _, u in ipairs(turn.updates) do
    if u.kind == 'agent_message_chunk' then
      streamed[#streamed + 1] = u.text
    end
  end
  local expected = vim.env.DSH_EXPECT_TEXT
  H.eq('streamed text equals the script', table.concat(streamed), expected)
  local lines = chat_lines()
  local chat = table.concat(lines, '\n')
  local r = require('dsh.chat').renderer()
  local marks =
    api.nvim_buf_get_extmarks(r.buf, require('dsh.render').ns.reasoning, 0, -1, { details = true })
  H.eq('one reasoning block', #marks, 1)
  local first = marks[1] and marks[1][4].end_row + 2 or 1 -- 1-based line after the reasoning
  local last = #lines
  while last > first and not vim.startswith(lines[last], 'tokens: ') do
    last = last - 1
  end
  H.eq(
    'chat text equals the script',
    table.concat(vim.list_slice(lines, first, last - 1), '\n'),
    expected
  )
  H.check('usage line', chat:find('\ntokens: %d'), chat)
  H.check(
    'reasoning block folded in the chat window',
    vim.fn.foldclosed(vim.fn.index(chat_lines(), require('dsh.render').reasoning_header) + 1) > 0
  )
  H.eq('turn result', turn.done and turn.done.stopReason, 'end_turn')
end)

H.case('permission prompt answered through vim.ui.select', function()
  local _, buf = boot({ permissions = { edit = 'ask', prompt = 'select' } })
  local asked = {}
  vim.ui.select = function(items, opts, on_choice)
    local preview
    for _, win in ipairs(api.nvim_list_wins()) do
      if vim.w[win].dsh_diff_preview then
        preview = api.nvim_buf_get_lines(api.nvim_win_get_buf(win), 0, -1, false)
      end
    end
    asked[#asked + 1] = {
      prompt = opts.prompt,
      options = vim.tbl_map(function(o)
        return o.optionId
      end, items),
      preview = preview,
    }
    for _, item in ipairs(items) do
      if item.optionId == vim.env.DSH_CHOICE then
        return vim.schedule(function()
          on_choice(item)
        end)
      end
    end
    on_choice(nil)
  end
  local turn = ask('Fix notes.txt')
  record(turn)
  H.results.data.asked = asked
  H.eq('asked once', #asked, 1)
  H.check(
    'offered allow and reject',
    asked[1]
      and vim.tbl_contains(asked[1].options, 'allow_once')
      and vim.tbl_contains(asked[1].options, 'reject_once'),
    asked
  )
  H.check(
    'diff preview shown',
    asked[1] and asked[1].preview and vim.tbl_contains(asked[1].preview, '+beta EDITED'),
    asked
  )
  local want = vim.env.DSH_CHOICE == 'allow_once' and { 'alpha', 'beta EDITED', 'gamma' }
    or ORIGINAL
  H.eq('buffer after the choice', H.lines(buf), want)
  H.eq('disk untouched', disk(buf), ORIGINAL)
  H.eq('turn ended normally', turn.done and turn.done.stopReason, 'end_turn')
end)

H.case('stale edit is refused and the model is told', function()
  local client, buf = boot()
  local original = client.handlers['workspace/applyEdit']
  local answers = {}
  client.handlers['workspace/applyEdit'] = function(err, params, ctx)
    if #answers == 0 then
      -- The user types just before the agent's edit arrives.
      api.nvim_buf_set_lines(buf, 2, 3, false, { 'gamma typed by the user' })
    end
    local result = original(err, params, ctx)
    answers[#answers + 1] = result
    return result
  end
  local turn = ask('Fix notes.txt')
  record(turn)
  H.results.data.apply_answers = answers
  H.check('the edit reached the editor', #answers >= 1, answers)
  H.eq('first edit refused as stale', answers[1] and answers[1].applied, false)
  H.eq(
    'user text kept, stale edit not applied',
    H.lines(buf),
    { 'alpha', 'beta', 'gamma typed by the user' }
  )
  local tools = tool_lines()
  H.eq('edit tool call failed', tools[2] and tools[2].status, 'failed')
  H.eq('turn ended normally', turn.done and turn.done.stopReason, 'end_turn')
end)

H.case('cancel mid-stream', function()
  boot()
  local cancelled = false
  local turn = ask('Write a long essay', {
    on_update = function(u)
      if u.kind == 'agent_message_chunk' and not cancelled then
        cancelled = true
        vim.schedule(function()
          require('dsh').cancel()
        end)
      end
    end,
  })
  record(turn)
  H.eq('answered cancelled', turn.done and turn.done.stopReason, 'cancelled')
  H.check('chat shows cancelled', vim.tbl_contains(chat_lines(), '⊘ cancelled'), chat_lines())
  local again = ask('Say something short')
  H.eq('next prompt works', again.done and again.done.stopReason, 'end_turn')
  H.check('its answer is in the chat', vim.tbl_contains(chat_lines(), 'after cancel'), chat_lines())
  local cancelled_lines = vim.tbl_filter(function(line)
    return line == '⊘ cancelled'
  end, chat_lines())
  H.eq('only the first turn shows cancelled', #cancelled_lines, 1)
  H.eq(
    'the second turn reports only its own end',
    again.updates[#again.updates].stopReason,
    'end_turn'
  )
  record(again)
end)

H.case('resume: first run', function()
  boot()
  local turn = ask('remember 42')
  record(turn)
  H.eq('turn ended normally', turn.done and turn.done.stopReason, 'end_turn')
  H.results.data.session_id = require('dsh.client').state.session_id
  H.check('a session id', H.results.data.session_id ~= nil)
end)

H.case('resume: second run', function()
  boot()
  local want = vim.env.DSH_SESSION_ID
  local offered
  vim.ui.select = function(items, opts, on_choice)
    offered = vim.tbl_map(opts.format_item, items)
    for _, item in ipairs(items) do
      if item.sessionId == want then
        return on_choice(item)
      end
    end
    on_choice(nil)
  end
  vim.cmd('DshSessions')
  H.wait('the resumed history', 15000, function()
    return require('dsh.client').state.session_id == want
      and vim.tbl_contains(chat_lines(), 'resumed session ' .. want)
  end)
  H.results.data.offered = offered
  local chat = chat_lines()
  H.check('history replayed: the question', vim.tbl_contains(chat, 'remember 42'), chat)
  H.check('history replayed: the answer', vim.tbl_contains(chat, 'Noted 42.'), chat)
  H.eq(
    'replay starts with the question',
    vim.list_slice(chat, 1, 4),
    { '# dsh', '', '## You', 'remember 42' }
  )
  local turn = ask('which number?')
  record(turn)
  H.eq('the resumed session answers', turn.done and turn.done.stopReason, 'end_turn')
  H.check('answer in the chat', vim.tbl_contains(chat_lines(), 'It was 42.'), chat_lines())
end)

H.case('a failed turn shows the error and its hint in the chat', function()
  boot({ model = { base_url = 'https://api.deepseek.com' } })
  require('dsh').toggle()
  local turn = ask('hello')
  record(turn)
  local err = turn.done and turn.done.error or {}
  H.eq('the prompt failed with AUTH', type(err.data) == 'table' and err.data.code, 'AUTH')
  local chat = table.concat(chat_lines(), ' ')
  H.check('what happened', chat:find('DEEPSEEK_API_KEY is not set', 1, true), chat)
  H.check('what fixes it', chat:find('dsh.model.apiKeyEnv', 1, true), chat)
  H.check('then restart', chat:find('restart dsh-lsp', 1, true), chat)
end)

H.case('checkhealth against the real server', function()
  boot()
  vim.env.DEEPSEEK_API_KEY = 'scripted-key'
  vim.cmd('checkhealth dsh')
  local text = table.concat(H.lines(api.nvim_get_current_buf()), '\n')
  H.results.data.health = text
  H.check('server version', text:find('server version: dsh%-lsp %d'), text)
  H.check('protocol version', text:find('server speaks dsh protocol version 1', 1, true), text)
  H.check('key set', text:find('$DEEPSEEK_API_KEY is set', 1, true), text)
  H.check('model in use', text:find('model in use: scripted', 1, true), text)
  H.check('endpoint', text:find('endpoint: ' .. vim.env.DSH_MODEL_URL .. '/v1', 1, true), text)
  H.check('server key set', text:find('API key variable $DEEPSEEK_API_KEY (set)', 1, true), text)
  H.check('no error', text:find('no server error recorded', 1, true), text)
  H.check('no ERROR lines', not text:find('ERROR', 1, true), text)
end)

H.case('the agent hears of the error it wrote, of its fix, and finds a definition', function()
  -- Real language servers beside dsh: ruff (pulled diagnostics) and jedi (definitions).
  for name, cmd in pairs({ ruff = vim.env.DSH_RUFF_CMD, jedi = vim.env.DSH_JEDI_CMD }) do
    vim.lsp.config(name, {
      cmd = vim.json.decode(cmd),
      filetypes = { 'python' },
      root_markers = { '.git' },
    })
  end
  vim.lsp.enable({ 'ruff', 'jedi' })
  local client, buf = boot({}, 'a.py')
  H.wait('ruff and jedi to attach', 20000, function()
    for _, name in ipairs({ 'ruff', 'jedi' }) do
      local c = vim.lsp.get_clients({ name = name, bufnr = buf })[1]
      if not (c and c.initialized) then
        return false
      end
    end
    return true
  end)
  -- The chat has the screen: a.py stays loaded, in no window.
  vim.cmd.enew()
  require('dsh').toggle()
  local versions = {}
  local original = client.handlers['workspace/applyEdit']
  client.handlers['workspace/applyEdit'] = function(err, params, ctx)
    local result = original(err, params, ctx)
    versions[#versions + 1] = vim.lsp.util.buf_versions[buf]
    return result
  end
  local answers = {}
  local answer_diagnostics = client.handlers['dsh/editor/diagnostics']
  client.handlers['dsh/editor/diagnostics'] = function(err, params, ctx)
    local started = vim.uv.hrtime()
    local result, rerr = answer_diagnostics(err, params, ctx) -- yields until it answers
    answers[#answers + 1] = {
      version = params.version,
      ms = (vim.uv.hrtime() - started) / 1e6,
      answered = result and result.items and result.items[1],
    }
    return result, rerr
  end
  local turn = ask('Break a.py, fix it, then find helper', { timeout = 40000 })
  record(turn)
  H.results.data.versions = versions
  H.results.data.diagnostics_answers = answers
  local versioned = vim.tbl_filter(function(a)
    return a.version ~= nil
  end, answers)
  H.eq(
    'asked for the diagnostics of each version written',
    vim.tbl_map(function(a)
      return a.version
    end, versioned),
    versions
  )
  for _, a in ipairs(versioned) do
    H.eq(
      'answered for that version, every server reported',
      a.answered and { a.answered.version, a.answered.complete },
      { a.version, true }
    )
  end
  H.eq('turn ended normally', turn.done and turn.done.stopReason, 'end_turn')
  H.eq('two edits applied', #versions, 2)
  H.eq('a.py as it started', H.lines(buf), vim.fn.readfile(api.nvim_buf_get_name(buf)))
  local titles = vim.tbl_map(function(t)
    return t.status
  end, tool_lines())
  H.eq('every tool call completed', titles, { 'completed', 'completed', 'completed', 'completed' })
end)

H.run()
