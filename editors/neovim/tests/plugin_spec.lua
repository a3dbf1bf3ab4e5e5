-- The plugin against an in-process fake server speaking the dsh/* contract.
-- Each case expects a fresh Neovim (pytest runs one case per process via $DSH_CASE).
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')
local F = require('fake_server')
local api = vim.api

local function workspace(files)
  local root = vim.fn.tempname()
  vim.fn.mkdir(root .. '/.git', 'p')
  for name, lines in pairs(files or { ['a.txt'] = { 'one', 'two', 'three' } }) do
    vim.fn.writefile(lines, root .. '/' .. name)
  end
  return vim.fn.resolve(root)
end

--- setup() + fake server + open `file` (default: a.txt of a fresh workspace() at `root`);
--- returns srv, client, bufnr, root.
local function start(handlers, opts, root, file)
  root = root or workspace()
  require('dsh').setup(vim.tbl_extend('force', { root_markers = { '.git' } }, opts or {}))
  local srv = F.new(handlers)
  vim.lsp.config('dsh', { cmd = srv.cmd })
  vim.cmd.edit(vim.fn.fnameescape(file or (root .. '/a.txt')))
  local bufnr = api.nvim_get_current_buf()
  local client
  H.wait('the client to initialize', 3000, function()
    client = vim.lsp.get_clients({ name = 'dsh', bufnr = bufnr })[1]
    return client ~= nil and client.initialized
  end)
  return srv, client, bufnr, root
end

--- A fake server that answers session/new and streams `updates` for each prompt.
local function turn_server(updates, result, extra)
  local handlers = {
    ['dsh/session/new'] = function(_, reply)
      reply(nil, { sessionId = 'S1' })
    end,
    ['dsh/prompt'] = function(params, reply, srv)
      vim.schedule(function()
        for _, u in ipairs(updates) do
          srv:notify('dsh/session/update', { sessionId = params.sessionId, update = u })
        end
        reply(nil, result or { stopReason = 'end_turn' })
      end)
    end,
  }
  return vim.tbl_extend('force', handlers, extra or {})
end

--- The experimental.dsh capability the plugin announces (the config and the wire both carry it).
local DSH_CAPABILITY = {
  version = 1,
  sessionUpdates = true,
  permissions = true,
  saveDocuments = true,
  editor = {
    diagnostics = true,
    definition = true,
    references = true,
    symbols = true,
    hover = true,
  },
}

--- dsh.ask(`prompt`, `opts`); returns a function that gives the turn's result (nil until it ends).
local function ask(prompt, opts)
  local done
  require('dsh').ask(
    prompt,
    vim.tbl_extend('force', opts or {}, {
      on_done = function(r)
        done = r
      end,
    })
  )
  return function()
    return done
  end
end

--- dsh.ask(`prompt`, `opts`) and wait for the turn to end; returns its result.
local function ask_and_wait(prompt, opts)
  local result = ask(prompt, opts)
  H.wait('the turn', 3000, function()
    return result() ~= nil
  end)
  return result()
end

local function chat_text()
  local r = require('dsh.chat').renderer()
  return api.nvim_buf_get_lines(r.buf, 0, r:boundary_row(), false)
end

H.case('setup validates options', function()
  local dsh = require('dsh')
  local function err_of(opts)
    local ok, err = pcall(dsh.setup, opts)
    return not ok and err or nil
  end
  H.eq('bad type', err_of({ cmd = 'dsh-lsp' }), '(dsh) `cmd` should be table, not string')
  H.eq(
    'bad enum',
    err_of({ permissions = { edit = 'never' } }),
    '(dsh) `permissions.edit` should be one of allow|ask, not "never"'
  )
  H.eq(
    'bad layout',
    err_of({ window = { layout = 'tab' } }),
    '(dsh) `window.layout` should be one of vsplit|split|float, not "tab"'
  )
  H.eq(
    'bad size',
    err_of({ window = { width = -1 } }),
    '(dsh) `window.width` should be positive, not -1'
  )
  H.eq(
    'bad steps',
    err_of({ max_steps_per_turn = 0 }),
    '(dsh) `max_steps_per_turn` should be a positive integer'
  )
  H.eq(
    'bad thinking',
    err_of({ model = { thinking = true } }),
    '(dsh) `model.thinking` should be one of enabled|disabled, not true'
  )
  H.eq(
    'bad keymap',
    err_of({ keymaps = { send = 1 } }),
    '(dsh) `keymaps.send` should be string, not number'
  )
  H.eq(
    'bad save_after_turn',
    err_of({ edits = { save_after_turn = 'yes' } }),
    '(dsh) `edits.save_after_turn` should be boolean, not string'
  )
  H.eq(
    'valid options',
    err_of({
      cmd = { 'python', '-m', 'dsh_lsp' },
      model = { name = 'm', base_url = 'http://127.0.0.1:1', thinking = 'enabled' },
      permissions = { edit = 'ask' },
      edits = { save_after_turn = true },
      max_steps_per_turn = 5,
      session_dir = '/tmp/s',
      enable = false,
    }),
    nil
  )
  local opts = require('dsh.config').options
  H.eq(
    'merged with defaults',
    { opts.cmd, opts.permissions.shell, opts.keymaps.send },
    { { 'python', '-m', 'dsh_lsp' }, 'ask', '<C-s>' }
  )
  local config = vim.lsp.config.dsh
  H.eq('lsp config cmd', config.cmd, { 'python', '-m', 'dsh_lsp' })
  H.eq('initializationOptions are camelCase', config.init_options, {
    model = {
      name = 'm',
      baseUrl = 'http://127.0.0.1:1',
      apiKeyEnv = 'DEEPSEEK_API_KEY',
      thinking = 'enabled',
    },
    permissions = { edit = 'ask', shell = 'ask', readOutsideWorkspace = 'ask' },
    edits = { saveAfterTurn = true },
    maxStepsPerTurn = 5,
    sessionDir = '/tmp/s',
  })
  H.eq('workspace/configuration section', config.settings.dsh, config.init_options)
  H.eq('experimental.dsh capability', config.capabilities.experimental.dsh, DSH_CAPABILITY)
  H.eq(
    'documentChanges capability',
    config.capabilities.workspace.workspaceEdit.documentChanges,
    true
  )
  H.check(
    'handlers',
    config.handlers['dsh/session/update']
      and config.handlers['dsh/requestPermission']
      and config.handlers['workspace/applyEdit']
      and config.handlers['dsh/saveDocuments']
  )
  H.eq('enable=false leaves it disabled', vim.lsp.is_enabled('dsh'), false)
  H.check(
    'commands exist',
    vim.fn.exists(':Dsh') == 2
      and vim.fn.exists(':DshAsk') == 2
      and vim.fn.exists(':DshChanges') == 2
  )
  H.eq('highlight linked', api.nvim_get_hl(0, { name = 'DshReasoning' }).link, 'Comment')
end)

H.case('vim.lsp.enable starts the server with the dsh capabilities', function()
  local srv, client, bufnr, root = start({}, { model = { name = 'scripted' } })
  H.check(
    'client attached to the file buffer',
    client and vim.lsp.buf_is_attached(bufnr, client.id)
  )
  local caps = srv.init_params.capabilities
  H.eq('experimental.dsh sent', caps.experimental.dsh, DSH_CAPABILITY)
  H.eq(
    'saveAfterTurn sent (default off)',
    srv.init_params.initializationOptions.edits,
    { saveAfterTurn = false }
  )
  H.eq('documentChanges sent', caps.workspace.workspaceEdit.documentChanges, true)
  H.eq('resourceOperations kept', caps.workspace.workspaceEdit.resourceOperations ~= nil, true)
  H.eq('initializationOptions sent', srv.init_params.initializationOptions.model.name, 'scripted')
  H.eq('root is the workspace', client.root_dir, root)
  H.eq('didOpen sent', #srv:messages('textDocument/didOpen'), 1)
end)

H.case('ask streams a turn into the chat and reports to callbacks', function()
  local updates = {
    { kind = 'state_update', state = 'running' },
    { kind = 'user_message', content = { { type = 'text', text = 'explain' } } },
    { kind = 'agent_thought_chunk', text = 'hmm' },
    { kind = 'agent_message_chunk', text = 'It is ' },
    { kind = 'agent_message_chunk', text = 'fine.' },
    { kind = 'usage_update', inputTokens = 10, outputTokens = 3, cacheReadTokens = 30 },
    { kind = 'state_update', state = 'idle', stopReason = 'end_turn' },
  }
  local srv, client, bufnr = start(turn_server(updates, {
    stopReason = 'end_turn',
    usage = { inputTokens = 10, outputTokens = 3, cacheReadTokens = 30 },
  }))
  local seen = {}
  local done = ask_and_wait('explain #buffer', {
    bufnr = bufnr,
    on_update = function(u)
      seen[#seen + 1] = u.kind
    end,
  })
  H.eq('on_done result', done, {
    stopReason = 'end_turn',
    usage = { inputTokens = 10, outputTokens = 3, cacheReadTokens = 30 },
  })
  H.eq('on_update saw every update', #seen, #updates)
  local prompt = srv:messages('dsh/prompt')[1].params
  H.eq('prompt blocks', prompt, {
    sessionId = 'S1',
    prompt = {
      { type = 'text', text = 'explain' },
      { type = 'resource_link', uri = vim.uri_from_bufnr(bufnr) },
    },
  })
  H.eq(
    'session created in the workspace',
    srv:messages('dsh/session/new')[1].params.cwd,
    client.root_dir
  )
  H.eq('chat transcript', chat_text(), {
    '# dsh',
    '',
    '## You',
    'explain',
    '📎 a.txt',
    '',
    '## dsh',
    '▸ reasoning',
    'hmm',
    'It is fine.',
    'tokens: 40 in (75% cached) · 3 out',
  })
  H.eq('turn state cleared', require('dsh.client').state.turn, nil)
end)

H.case('range and diagnostics attach context', function()
  local srv, _, bufnr = start(turn_server({}))
  local ns = api.nvim_create_namespace('test')
  vim.diagnostic.set(ns, bufnr, {
    {
      lnum = 1,
      col = 0,
      message = 'bad two',
      severity = vim.diagnostic.severity.ERROR,
      source = 'lint',
    },
  })
  local done = false
  vim.cmd('2,3DshAsk why #diagnostics')
  H.wait('the prompt', 3000, function()
    return #srv:messages('dsh/prompt') == 1
  end)
  local blocks = srv:messages('dsh/prompt')[1].params.prompt
  H.eq('text block', blocks[1], { type = 'text', text = 'why' })
  H.eq(
    'diagnostics block',
    blocks[2],
    { type = 'text', text = 'Diagnostics for a.txt:\na.txt:2:1: error: bad two (lint)' }
  )
  H.eq('selection as resource_link with range', blocks[3], {
    type = 'resource_link',
    uri = vim.uri_from_bufnr(bufnr),
    range = { start = { line = 1, character = 0 }, ['end'] = { line = 2, character = 5 } },
  })
  H.check('chat opened by :DshAsk', require('dsh.chat').state.win ~= nil)
  H.wait('the turn to end', 3000, function()
    done = require('dsh.client').state.turn == nil
    return done
  end)
  H.check('attachment line in chat', vim.tbl_contains(chat_text(), '📎 a.txt:2-3'))
end)

H.case('cancel from the chat with <C-c>', function()
  local pending
  local srv = start({
    ['dsh/session/new'] = function(_, reply)
      reply(nil, { sessionId = 'S1' })
    end,
    ['dsh/prompt'] = function(params, reply, s)
      s:notify('dsh/session/update', {
        sessionId = params.sessionId,
        update = { kind = 'agent_message_chunk', text = 'partial' },
      })
      pending = reply
    end,
    ['dsh/cancel'] = function(params, _, s)
      s:notify('dsh/session/update', {
        sessionId = params.sessionId,
        update = { kind = 'state_update', state = 'idle', stopReason = 'cancelled' },
      })
      pending(nil, { stopReason = 'cancelled' })
    end,
  })
  local result = ask('long task')
  H.wait('the first chunk', 3000, function()
    return pending ~= nil
  end)
  require('dsh.chat').open()
  api.nvim_feedkeys(api.nvim_replace_termcodes('<C-c>', true, false, true), 'x', false)
  H.wait('the cancelled answer', 3000, function()
    return result() ~= nil
  end)
  H.eq(
    'dsh/cancel sent for the session',
    srv:messages('dsh/cancel')[1].params,
    { sessionId = 'S1' }
  )
  H.eq('result', result(), { stopReason = 'cancelled' })
  local lines = chat_text()
  H.eq(
    'chat shows cancelled once',
    vim.list_slice(lines, #lines - 1),
    { 'partial', '⊘ cancelled' }
  )
  H.eq('no turn left', require('dsh.client').state.turn, nil)
  H.eq(':DshCancel with no turn', require('dsh').cancel(), false)
end)

H.case('permission request with diff preview through vim.ui.select', function()
  local srv, _, bufnr = start(turn_server({}), { permissions = { prompt = 'select' } })
  local seen = {}
  vim.ui.select = function(items, opts, on_choice)
    local previews = {}
    for _, win in ipairs(api.nvim_list_wins()) do
      if vim.w[win].dsh_diff_preview then
        previews[#previews + 1] = api.nvim_buf_get_lines(api.nvim_win_get_buf(win), 0, -1, false)
      end
    end
    seen[#seen + 1] = {
      names = vim.tbl_map(opts.format_item, items),
      prompt = opts.prompt,
      preview = previews[1],
    }
    vim.schedule(function()
      on_choice(#seen == 1 and items[1] or nil)
    end)
  end
  require('dsh.client').state.turn = { session_id = 'S1', cancelled = false }
  local params = {
    sessionId = 'S1',
    toolCall = {
      toolCallId = 'c1',
      title = 'Edit a.txt',
      kind = 'edit',
      rawInput = { path = 'a.txt', old_string = 'two', new_string = 'TWO' },
      content = {
        {
          type = 'diff',
          path = api.nvim_buf_get_name(bufnr),
          oldText = 'one\ntwo\nthree\n',
          newText = 'one\nTWO\nthree\n',
        },
      },
    },
    options = {
      { optionId = 'allow_once', name = 'Allow once', kind = 'allow_once' },
      { optionId = 'reject_once', name = 'Reject', kind = 'reject_once' },
    },
  }
  local answers = {}
  srv:request('dsh/requestPermission', params, function(result)
    answers[#answers + 1] = result
  end)
  H.wait('the first answer', 3000, function()
    return #answers == 1
  end)
  srv:request('dsh/requestPermission', params, function(result)
    answers[#answers + 1] = result
  end)
  H.wait('the second answer', 3000, function()
    return #answers == 2
  end)
  H.eq('options offered', seen[1].names, { 'Allow once', 'Reject' })
  H.eq('prompt names the call', seen[1].prompt, 'dsh: allow Edit a.txt?')
  H.eq('diff preview shown while choosing', seen[1].preview, {
    '--- a/a.txt',
    '+++ b/a.txt',
    '@@ -1,3 +1,3 @@',
    ' one',
    '-two',
    '+TWO',
    ' three',
  })
  H.eq(
    'selected answer',
    answers[1],
    { outcome = { outcome = 'selected', optionId = 'allow_once' } }
  )
  H.eq('dismissed answer', answers[2], { outcome = { outcome = 'cancelled' } })
  local left = 0
  for _, win in ipairs(api.nvim_list_wins()) do
    left = left + (vim.w[win].dsh_diff_preview and 1 or 0)
  end
  H.eq('preview closed', left, 0)
end)

H.case('permission question waits in a float that does not take the keyboard', function()
  local srv, _, bufnr = start(turn_server({}), { permissions = { edit = 'ask' } })
  local lines = {}
  for i = 1, 12 do
    lines[i] = 'line ' .. i
  end
  api.nvim_buf_set_lines(bufnr, 0, -1, false, lines)
  vim.bo[bufnr].eol = false
  local called = false
  vim.ui.select = function()
    called = true
  end
  require('dsh.client').state.turn = { session_id = 'S1', cancelled = false }
  local win = api.nvim_get_current_win()
  local answers = {}
  srv:request('dsh/requestPermission', {
    sessionId = 'S1',
    toolCall = {
      toolCallId = 'c1',
      title = 'Edit a.txt',
      kind = 'edit',
      content = {
        { type = 'diff', path = 'a.txt', oldText = 'line 7', newText = 'line SEVEN' },
      },
    },
    options = {
      { optionId = 'allow_once', name = 'Allow once', kind = 'allow_once' },
      { optionId = 'reject_once', name = 'Reject', kind = 'reject_once' },
    },
  }, function(result)
    answers[#answers + 1] = result
  end)
  H.wait('the question', 3000, function()
    return #require('dsh.permission').pending == 1
  end)
  local q = require('dsh.permission').pending[1]
  H.eq('focus stays where the user is', api.nvim_get_current_win(), win)
  H.eq('vim.ui.select is not opened', called, false)
  local shown = api.nvim_buf_get_lines(api.nvim_win_get_buf(q.win), 0, -1, false)
  H.eq('whole-file hunk with real line numbers, no newline noise', shown, {
    '--- a/a.txt',
    '+++ b/a.txt',
    '@@ -4,7 +4,7 @@',
    ' line 4',
    ' line 5',
    ' line 6',
    '-line 7',
    '+line SEVEN',
    ' line 8',
    ' line 9',
    ' line 10',
    '',
    'dsh: allow Edit a.txt?',
    '[1] Allow once  [2] Reject   (:DshAnswer)',
  })
  vim.cmd('DshAnswer')
  H.eq(':DshAnswer goes to the question', api.nvim_get_current_win(), q.win)
  vim.cmd('DshAnswer 1')
  H.wait('the answer', 3000, function()
    return #answers == 1
  end)
  H.eq('answered', answers[1], { outcome = { outcome = 'selected', optionId = 'allow_once' } })
  H.eq('back in the window the user came from', api.nvim_get_current_win(), win)
  H.eq('question closed', api.nvim_win_is_valid(q.win), false)
  H.eq('nothing waits', #require('dsh.permission').pending, 0)
end)

H.case('applyEdit: stale refused, one undo step per tool call, DshChanges', function()
  local srv, _, bufnr = start(turn_server({}))
  local uri = vim.uri_from_bufnr(bufnr)
  local function edit(version, line, text, label)
    return {
      label = label,
      edit = {
        documentChanges = {
          {
            textDocument = { uri = uri, version = version },
            edits = {
              {
                range = {
                  start = { line = line, character = 0 },
                  ['end'] = {
                    line = line,
                    character = #api.nvim_buf_get_lines(bufnr, line, line + 1, true)[1],
                  },
                },
                newText = text,
              },
            },
          },
        },
      },
    }
  end
  local function apply(params)
    local result
    srv:request('workspace/applyEdit', params, function(r)
      result = r
    end)
    H.wait('the applyEdit answer', 2000, function()
      return result ~= nil
    end)
    return result
  end
  local version = vim.lsp.util.buf_versions[bufnr]
  api.nvim_buf_set_lines(bufnr, 0, 1, false, { 'ONE (typed by the user)' })
  local stale = apply(edit(version, 1, 'stale edit', 'Edit a.txt'))
  H.eq('stale edit refused', stale.applied, false)
  H.check(
    'reason names the versions',
    stale.failureReason and stale.failureReason:find('stale version', 1, true),
    stale.failureReason
  )
  H.eq(
    'buffer untouched by the stale edit',
    H.lines(bufnr),
    { 'ONE (typed by the user)', 'two', 'three' }
  )

  local state = require('dsh.client').state
  state.current_tool = 'call-1'
  H.eq(
    'first hunk of call-1',
    apply(edit(vim.lsp.util.buf_versions[bufnr], 1, 'TWO', 'Edit a.txt')).applied,
    true
  )
  H.eq(
    'second hunk of call-1',
    apply(edit(vim.lsp.util.buf_versions[bufnr], 2, 'THREE', 'Edit a.txt')).applied,
    true
  )
  state.current_tool = 'call-2'
  H.eq(
    'hunk of call-2',
    apply(edit(vim.lsp.util.buf_versions[bufnr], 2, 'Three!', 'Edit a.txt')).applied,
    true
  )
  H.eq('edited', H.lines(bufnr), { 'ONE (typed by the user)', 'TWO', 'Three!' })
  H.check('still modified', vim.bo[bufnr].modified)
  H.eq('disk untouched', vim.fn.readfile(api.nvim_buf_get_name(bufnr)), { 'one', 'two', 'three' })
  api.nvim_buf_call(bufnr, function()
    vim.cmd('silent undo')
  end)
  H.eq('undo reverts call-2 only', H.lines(bufnr), { 'ONE (typed by the user)', 'TWO', 'THREE' })
  api.nvim_buf_call(bufnr, function()
    vim.cmd('silent undo')
  end)
  H.eq(
    'undo reverts both hunks of call-1',
    H.lines(bufnr),
    { 'ONE (typed by the user)', 'two', 'three' }
  )
  H.eq(
    'didChange flushed right away',
    srv:messages('textDocument/didChange')[#srv:messages('textDocument/didChange')].params.textDocument.version
      >= 0,
    true
  )

  vim.cmd('DshChanges')
  local qf = vim.fn.getqflist({ title = true, items = true })
  H.eq('quickfix title', qf.title, 'dsh: files changed by the last turn')
  H.eq('one file listed', #qf.items, 1)
  H.eq(
    'file and line',
    { api.nvim_buf_get_name(qf.items[1].bufnr), qf.items[1].lnum },
    { api.nvim_buf_get_name(bufnr), 2 }
  )
end)

H.case('saveDocuments writes the listed buffers and answers the uris saved', function()
  local srv, _, bufnr, root = start({})
  local function open(name, lines)
    vim.fn.writefile(lines, root .. '/' .. name)
    vim.cmd.edit(vim.fn.fnameescape(root .. '/' .. name))
    return api.nvim_get_current_buf()
  end
  local clean = open('clean.txt', { 'clean' })
  local locked = open('locked.txt', { 'locked' })
  api.nvim_buf_set_lines(locked, 0, 1, false, { 'LOCKED' })
  vim.bo[locked].readonly = true
  api.nvim_buf_set_lines(bufnr, 1, 2, false, { 'TWO' })
  local buffers = #api.nvim_list_bufs()
  local uri = vim.uri_from_bufnr(bufnr)
  local uris = {
    uri,
    vim.uri_from_fname(root .. '/clean.txt'),
    vim.uri_from_bufnr(locked),
    vim.uri_from_fname(root .. '/never-opened.txt'),
    'untitled:Untitled-1',
    uri,
  }
  local notified = {}
  vim.notify = function(msg)
    notified[#notified + 1] = msg
  end
  local result, err
  srv:request('dsh/saveDocuments', { uris = uris }, function(r, e)
    result, err = r, e
  end)
  H.wait('the saveDocuments answer', 2000, function()
    return result ~= nil or err ~= nil
  end)
  H.eq('no error', err, nil)
  H.eq('answer names the saved uris once, in order', result and result.saved, { uris[1], uris[2] })
  H.eq('modified buffer written', vim.fn.readfile(root .. '/a.txt'), { 'one', 'TWO', 'three' })
  H.eq('and no longer modified', vim.bo[bufnr].modified, false)
  H.eq('clean buffer counts as saved', vim.bo[clean].modified, false)
  H.eq('read-only buffer not written', vim.fn.readfile(root .. '/locked.txt'), { 'locked' })
  H.eq('and still modified', vim.bo[locked].modified, true)
  H.check(
    'the failed save is reported',
    notified[1] and notified[1]:find('could not save .*locked%.txt'),
    notified
  )
  H.eq('no buffer created for unknown uris', #api.nvim_list_bufs(), buffers)
  local bad
  srv:request('dsh/saveDocuments', { uris = vim.NIL }, function(r)
    bad = r
  end)
  H.wait('the malformed saveDocuments answer', 2000, function()
    return bad ~= nil
  end)
  H.eq('malformed params save nothing', bad and bad.saved, {})
end)

H.case('sessions picker resumes and replays history', function()
  local srv = start({
    ['dsh/session/list'] = function(_, reply)
      reply(nil, {
        sessions = {
          {
            sessionId = 'new',
            cwd = '/w',
            title = 'Newest',
            createdAt = '2026-11-30T10:00:00Z',
            updatedAt = '2026-11-30T11:00:00Z',
          },
          { sessionId = 'old', cwd = '/w', createdAt = 1764496800000, updatedAt = 1764496800000 },
        },
      })
    end,
    ['dsh/session/resume'] = function(params, reply, s)
      if params.sessionId ~= 'old' then
        return reply({ code = -32602, message = 'unknown session ' .. params.sessionId })
      end
      for _, u in ipairs({
        { kind = 'user_message', content = { { type = 'text', text = 'earlier question' } } },
        { kind = 'agent_message_chunk', text = 'earlier answer' },
        { kind = 'state_update', state = 'idle', stopReason = 'end_turn' },
      }) do
        s:notify('dsh/session/update', { sessionId = 'old', update = u })
      end
      reply(nil, { sessionId = 'old' })
    end,
    ['dsh/session/new'] = function(_, reply)
      reply(nil, { sessionId = 'fresh' })
    end,
  })
  local shown
  vim.ui.select = function(items, opts, on_choice)
    shown = vim.tbl_map(opts.format_item, items)
    on_choice(items[2])
  end
  vim.cmd('DshSessions')
  H.wait('the resume answer', 3000, function()
    return require('dsh.client').state.session_id == 'old'
      and #srv:messages('dsh/session/resume') == 1
      and vim.tbl_contains(chat_text(), 'resumed session old')
  end)
  local chat_buf = require('dsh.chat').renderer().buf
  H.check(
    ':DshSessions opens the chat to show the replay',
    #vim.fn.win_findbuf(chat_buf) > 0,
    vim.fn.win_findbuf(chat_buf)
  )
  H.eq(
    'labels: date and title (id when untitled)',
    shown,
    { '2026-11-30 11:00  Newest', os.date('%Y-%m-%d %H:%M', 1764496800) .. '  old' }
  )
  H.eq(
    'list params are an object',
    vim.json.encode(srv:messages('dsh/session/list')[1].params),
    '{}'
  )
  H.eq('replayed transcript', chat_text(), {
    '# dsh',
    '',
    '## You',
    'earlier question',
    '',
    '## dsh',
    'earlier answer',
    'resumed session old',
  })
  local err
  require('dsh').resume('nope', function(_, e)
    err = e
  end)
  H.wait('the unknown-session error', 3000, function()
    return err ~= nil
  end)
  H.eq('unknown session error', err, 'unknown session nope')
  H.eq('active session kept', require('dsh.client').state.session_id, 'old')
  vim.cmd('DshNew')
  H.wait('the new session', 3000, function()
    return require('dsh.client').state.session_id == 'fresh'
  end)
  H.eq('chat cleared for the new session', chat_text(), { '# dsh' })
end)

H.case('toggle opens and closes the chat window; float layout', function()
  start({}, { window = { layout = 'float', width = 0.5, height = 0.5 } })
  local wins = #api.nvim_list_wins()
  vim.cmd('Dsh')
  local win = require('dsh.chat').state.win
  H.check('chat window open', win and api.nvim_win_is_valid(win))
  H.eq('float window', api.nvim_win_get_config(win).relative, 'editor')
  H.eq('markdown chat buffer', vim.bo[api.nvim_win_get_buf(win)].filetype, 'markdown')
  H.eq('folds by expression', vim.wo[win].foldmethod, 'expr')
  vim.cmd('Dsh')
  H.eq('closed again', #api.nvim_list_wins(), wins)
end)

H.case('checkhealth dsh reports', function()
  start({})
  vim.env.DEEPSEEK_API_KEY = nil
  require('dsh.client').record_error('boom')
  vim.cmd('checkhealth dsh')
  local text = table.concat(H.lines(api.nvim_get_current_buf()), '\n')
  H.check('Neovim version', text:find('Neovim %d+%.%d+'), text)
  H.check('server command reported', text:find('server command', 1, true), text)
  H.check('api key variable', text:find('$DEEPSEEK_API_KEY is not set', 1, true), text)
  H.check('client running', text:find('client %d+ running'), text)
  H.check('last error', text:find('last server error: .* boom'), text)
end)

H.case('help documents every command, option and highlight group', function()
  local doc = vim.fn.tempname()
  vim.fn.mkdir(doc, 'p')
  local text = table.concat(vim.fn.readfile(H.root .. '/doc/dsh.txt'), '\n')
  vim.fn.writefile(vim.split(text, '\n'), doc .. '/dsh.txt')
  local ok, err = pcall(vim.cmd, 'helptags ' .. vim.fn.fnameescape(doc))
  H.check('helptags without duplicates', ok, err)
  for name in pairs(require('dsh.commands').specs) do
    H.check('command documented: ' .. name, text:find('*:' .. name .. '*', 1, true))
  end
  local function walk(prefix, tbl)
    for key, value in pairs(tbl) do
      if type(key) == 'string' then
        H.check('option documented: ' .. prefix .. key, text:find(key .. ' =', 1, true))
        if type(value) == 'table' and not vim.islist(value) then
          walk(prefix .. key .. '.', value)
        end
      end
    end
  end
  walk('', require('dsh.config').defaults)
  for _, key in ipairs({ 'cmd_env', 'max_steps_per_turn', 'session_dir' }) do
    H.check('nil-default option documented: ' .. key, text:find(key .. ' =', 1, true))
  end
  for group in pairs(require('dsh.highlights').links) do
    H.check('highlight documented: ' .. group, text:find('  ' .. group .. ' ', 1, true))
  end
  for name, fn in pairs(require('dsh')) do
    if type(fn) == 'function' then
      H.check('API documented: ' .. name, text:find('*dsh.' .. name .. '()*', 1, true))
    end
  end
end)

H.case('chat keys: <C-s> sends the input, <CR> jumps to a tool location', function()
  local file
  local srv, _, bufnr = start({
    ['dsh/session/new'] = function(_, reply)
      reply(nil, { sessionId = 'S1' })
    end,
    ['dsh/prompt'] = function(params, reply, s)
      local card = { toolCallId = 't1', title = 'Read a.txt', kind = 'read', status = 'completed' }
      s:notify(
        'dsh/session/update',
        { sessionId = params.sessionId, update = { kind = 'tool_call', toolCall = card } }
      )
      local loc = { toolCallId = 't1', locations = { { path = file, line = 3 } } }
      s:notify(
        'dsh/session/update',
        { sessionId = params.sessionId, update = { kind = 'tool_call', toolCall = loc } }
      )
      reply(nil, { stopReason = 'end_turn' })
    end,
  })
  file = api.nvim_buf_get_name(bufnr)
  require('dsh.chat').open()
  local chat = api.nvim_get_current_buf()
  local r = require('dsh.chat').renderer()
  api.nvim_buf_set_lines(chat, r:boundary_row(), -1, false, { 'hello', 'there' })
  api.nvim_win_set_cursor(0, { api.nvim_buf_line_count(chat), 0 })
  api.nvim_feedkeys(api.nvim_replace_termcodes('<C-s>', true, false, true), 'x', false)
  H.wait('the prompt', 3000, function()
    return #srv:messages('dsh/prompt') == 1 and require('dsh.client').state.turn == nil
  end)
  H.eq(
    'input sent',
    srv:messages('dsh/prompt')[1].params.prompt,
    { { type = 'text', text = 'hello\nthere' } }
  )
  H.eq('input cleared', r:input_lines(), { '' })
  local row = vim.fn.index(api.nvim_buf_get_lines(chat, 0, -1, false), '✓ Read a.txt  a.txt:3')
  H.check('tool line with location', row >= 0, api.nvim_buf_get_lines(chat, 0, -1, false))
  api.nvim_win_set_cursor(0, { row + 1, 0 })
  api.nvim_feedkeys(api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
  H.eq('jumped to the file', api.nvim_buf_get_name(0), file)
  H.eq('at the line', api.nvim_win_get_cursor(0)[1], 3)
  H.check('chat window still open', api.nvim_win_is_valid(require('dsh.chat').state.win))
end)

H.case('a tool card lists its locations; <CR> on one jumps there', function()
  local root = workspace({
    ['a.py'] = { 'from b import helper', '', 'helper()' },
    ['b.py'] = { 'def helper():', '    pass' },
  })
  local a, b = root .. '/a.py', root .. '/b.py'
  local function card(id, fields)
    return { kind = 'tool_call', toolCall = vim.tbl_extend('force', { toolCallId = id }, fields) }
  end
  local refs = {
    { path = b, line = 1 },
    { path = a, line = 1 },
    { path = a, line = 3 },
  }
  local updates = {
    card('r1', { title = "References 'helper'", kind = 'search', status = 'in_progress' }),
    card('d1', { title = 'Diagnostics', kind = 'read', status = 'in_progress' }),
    -- r1 completes after d1's line was written: its location lines go in between
    card('r1', { status = 'completed', locations = refs }),
    card('d1', { status = 'completed', locations = { { path = a, line = 3 } } }),
    { kind = 'agent_message_chunk', text = 'Three references.' },
  }
  start(turn_server(updates), nil, root, a)
  ask_and_wait('where is helper used?')
  require('dsh.chat').open()
  local chat = chat_text()
  local first = vim.fn.index(chat, "✓ References 'helper'  b.py:1")
  H.check('the card line shows the first location', first >= 0, chat)
  H.eq(
    'one line per location under it, then the next card',
    vim.list_slice(chat, first + 2, first + 5),
    {
      '    b.py:1',
      '    a.py:1',
      '    a.py:3',
      '✓ Diagnostics  a.py:3',
    }
  )
  H.check('the answer follows', vim.tbl_contains(chat, 'Three references.'), chat)
  api.nvim_win_set_cursor(0, { first + 4, 0 }) -- the `a.py:3` line
  api.nvim_feedkeys(api.nvim_replace_termcodes('<CR>', true, false, true), 'x', false)
  H.eq('jumped to that file', api.nvim_buf_get_name(0), a)
  H.eq('at that line', api.nvim_win_get_cursor(0)[1], 3)
  require('dsh.render').max_location_lines = 2
  local r = require('dsh.render').new(api.nvim_create_buf(false, true), { cwd = root })
  r:update(card('x', { title = 'Search', status = 'completed', locations = refs }))
  H.eq(
    'a long list is cut and counted',
    api.nvim_buf_get_lines(r.buf, 0, r:boundary_row(), false),
    {
      '# dsh',
      '',
      '## dsh',
      '✓ Search  b.py:1',
      '    b.py:1',
      '    a.py:1',
      '    … 1 more',
    }
  )
end)

H.case('works without setup: runtimepath + vim.lsp.enable', function()
  local root = workspace()
  local srv = F.new(turn_server({ { kind = 'agent_message_chunk', text = 'hi' } }))
  vim.lsp.config('dsh', { cmd = srv.cmd })
  vim.lsp.enable('dsh')
  vim.cmd.edit(vim.fn.fnameescape(root .. '/a.txt'))
  H.wait('the client', 3000, function()
    local c = vim.lsp.get_clients({ name = 'dsh' })[1]
    return c ~= nil and c.initialized
  end)
  H.eq('capability sent without setup', srv.init_params.capabilities.experimental.dsh.version, 1)
  H.eq('default settings sent', srv.init_params.initializationOptions.permissions.edit, 'allow')
  ask_and_wait('hello')
  H.check('answer in the chat', vim.tbl_contains(chat_text(), 'hi'), chat_text())
  H.eq('highlights defined by plugin/', api.nvim_get_hl(0, { name = 'DshUser' }).link, 'Title')
end)

H.run()
