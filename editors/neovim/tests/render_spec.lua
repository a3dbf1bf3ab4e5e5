-- The update → chat-buffer renderer, fed with recorded update sequences.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')
local render = require('dsh.render')
local api = vim.api

require('dsh.highlights').setup()

local function chunks(kind, text, size)
  local out = {}
  for i = 1, #text, size do
    out[#out + 1] = { kind = kind, text = text:sub(i, i + size - 1) }
  end
  return out
end

--- A renderer (`opts` as `render.new` takes them) on a fresh scratch buffer: `buf, r`.
local function new_renderer(opts)
  local buf = H.scratch()
  return buf, render.new(buf, opts)
end

local function feed(r, updates)
  for _, u in ipairs(updates) do
    r:update(u)
  end
end

local function transcript(buf, r)
  return api.nvim_buf_get_lines(buf, 0, r:boundary_row(), false)
end

local function hl_groups_at(buf, row)
  local groups = {}
  for _, m in
    ipairs(
      api.nvim_buf_get_extmarks(buf, render.ns.hl, { row, 0 }, { row, -1 }, { details = true })
    )
  do
    groups[#groups + 1] = m[4].hl_group
  end
  return groups
end

H.case('full turn renders text, reasoning, tool lines and usage', function()
  local buf, r = new_renderer({ cwd = '/ws' })
  r:user({
    { type = 'text', text = 'fix it' },
    {
      type = 'resource_link',
      uri = 'file:///ws/src/a.py',
      range = { start = { line = 9, character = 0 }, ['end'] = { line = 11, character = 4 } },
    },
  }, { echo = true })
  local updates = {}
  vim.list_extend(
    updates,
    { { kind = 'user_message', content = { { type = 'text', text = 'fix it' } } } }
  )
  vim.list_extend(updates, { { kind = 'state_update', state = 'running' } })
  vim.list_extend(updates, chunks('agent_thought_chunk', 'Let me look.\nThe file first.', 3))
  vim.list_extend(updates, chunks('agent_message_chunk', 'Reading the file.', 4))
  local function tool(card)
    return { kind = 'tool_call', toolCall = card }
  end
  updates[#updates + 1] =
    tool({ toolCallId = 't1', name = 'read', title = 'read', kind = 'other', status = 'pending' })
  updates[#updates + 1] = tool({
    toolCallId = 't1',
    name = 'read',
    title = 'Read src/a.py',
    kind = 'read',
    status = 'in_progress',
    locations = { { path = '/ws/src/a.py', line = 10 } },
  })
  updates[#updates + 1] = tool({
    toolCallId = 't1',
    status = 'completed',
    content = { { type = 'text', text = '1: x' } },
  })
  vim.list_extend(updates, chunks('agent_message_chunk', 'Done:\n- one\n- two', 5))
  updates[#updates + 1] = tool({
    toolCallId = 't2',
    name = 'edit',
    title = 'Edit src/a.py',
    kind = 'edit',
    status = 'pending',
  })
  updates[#updates + 1] = tool({
    toolCallId = 't2',
    status = 'failed',
    content = { { type = 'text', text = 'FS_STALE_VERSION: re-read\nmore' } },
    locations = { { path = '/ws/src/a.py', line = 3 } },
  })
  updates[#updates + 1] =
    { kind = 'usage_update', inputTokens = 200, outputTokens = 30, cacheReadTokens = 800 }
  updates[#updates + 1] = {
    kind = 'usage_update',
    inputTokens = 34,
    outputTokens = 5,
    cacheReadTokens = 0,
    reasoningTokens = 7,
  }
  updates[#updates + 1] = { kind = 'state_update', state = 'idle', stopReason = 'end_turn' }
  feed(r, updates)
  r:finish({ stopReason = 'end_turn' })
  H.eq('transcript', transcript(buf, r), {
    '# dsh',
    '',
    '## You',
    'fix it',
    '📎 src/a.py:10-12',
    '',
    '## dsh',
    '▸ reasoning',
    'Let me look.',
    'The file first.',
    'Reading the file.',
    '✓ Read src/a.py  src/a.py:10',
    'Done:',
    '- one',
    '- two',
    '✗ Edit src/a.py  src/a.py:3 — FS_STALE_VERSION: re-read',
    'tokens: 1,034 in (77% cached) · 35 out · 7 reasoning',
  })
  H.eq('input area untouched', r:input_lines(), { '' })
  H.eq(
    'tool line status highlight updated',
    hl_groups_at(buf, 11),
    { 'DshToolDone', 'DshLocation' }
  )
  H.eq('failed tool highlight', hl_groups_at(buf, 15)[1], 'DshToolFailed')
  local marks = api.nvim_buf_get_extmarks(buf, render.ns.reasoning, 0, -1, { details = true })
  H.eq('one reasoning range', #marks, 1)
  H.eq('reasoning spans header..last thought line', { marks[1][2], marks[1][4].end_row }, { 7, 9 })
  H.eq('reasoning dimmed', marks[1][4].hl_group, 'DshReasoning')
  local folds = {}
  api.nvim_buf_call(buf, function()
    for lnum = 7, 11 do
      folds[#folds + 1] = require('dsh.fold').foldexpr(lnum)
    end
  end)
  H.eq('fold levels around the reasoning block', folds, { '0', '>1', '1', '1', '0' })
  H.eq('tool under cursor row', r:tool_at_row(11).title, 'Read src/a.py')
  H.eq('no tool on a text row', r:tool_at_row(12), nil)
end)

H.case('reasoning folds closed in a chat window', function()
  local buf, r = new_renderer()
  r:user({ { type = 'text', text = 'q' } })
  feed(r, chunks('agent_thought_chunk', 'a\nb\nc', 1))
  feed(r, chunks('agent_message_chunk', 'answer', 2))
  local win = api.nvim_get_current_win()
  vim.wo[win].foldmethod = 'expr'
  vim.wo[win].foldexpr = "v:lua.require'dsh.fold'.foldexpr(v:lnum)"
  vim.wo[win].foldlevel = 0
  local header = vim.fn.index(H.lines(buf), render.reasoning_header) + 1
  H.eq('header line starts a closed fold', vim.fn.foldclosed(header), header)
  H.eq('fold ends at the last thought line', vim.fn.foldclosedend(header), header + 3)
  H.eq('answer line is not folded', vim.fn.foldclosed(header + 4), -1)
end)

H.case('cancelled and error footers, no double footer', function()
  local buf, r = new_renderer()
  r:user({ { type = 'text', text = 'go' } })
  feed(r, chunks('agent_message_chunk', 'partial', 3))
  r:update({ kind = 'state_update', state = 'idle', stopReason = 'cancelled' })
  r:finish({ stopReason = 'cancelled' })
  r:user({ { type = 'text', text = 'again' } })
  r:finish(nil, { code = -32603, message = 'auth failed', data = { code = 'AUTH' } })
  r:user({ { type = 'text', text = 'third' } })
  r:update({
    kind = 'state_update',
    state = 'idle',
    error = { code = 'RATE_LIMIT', message = 'slow down' },
  })
  r:finish(nil, { code = -32603, message = 'slow down', data = { code = 'RATE_LIMIT' } })
  local lines = transcript(buf, r)
  H.eq('transcript', lines, {
    '# dsh',
    '',
    '## You',
    'go',
    '',
    '## dsh',
    'partial',
    '⊘ cancelled',
    '',
    '## You',
    'again',
    '',
    '## dsh',
    '✗ auth failed [AUTH]',
    '',
    '## You',
    'third',
    '',
    '## dsh',
    '✗ slow down [RATE_LIMIT]',
  })
end)

H.case('replay renders user messages and plans', function()
  local buf, r = new_renderer()
  feed(r, {
    { kind = 'state_update', state = 'running' },
    { kind = 'user_message', content = { { type = 'text', text = 'first' } } },
    { kind = 'agent_message_chunk', text = 'one' },
    {
      kind = 'plan_update',
      entries = {
        { content = 'read', status = 'completed' },
        { content = 'edit', status = 'pending' },
      },
    },
    { kind = 'state_update', state = 'idle', stopReason = 'end_turn' },
    { kind = 'user_message', content = { { type = 'text', text = 'second' } } },
    { kind = 'agent_message_chunk', text = 'two' },
  })
  H.eq('transcript', transcript(buf, r), {
    '# dsh',
    '',
    '## You',
    'first',
    '',
    '## dsh',
    'one',
    '- [x] read',
    '- [ ] edit',
    '',
    '## You',
    'second',
    '',
    '## dsh',
    'two',
  })
end)

H.case('compaction and instructions notices render', function()
  local buf, r = new_renderer()
  feed(r, {
    { kind = 'state_update', state = 'running' },
    { kind = 'user_message', content = { { type = 'text', text = 'go' } } },
    { kind = 'instructions_update', sources = { 'AGENTS.md' } },
    { kind = 'compaction_update', state = 'queued' },
    { kind = 'compaction_update', state = 'started', reason = 'request', tokensBefore = 5000 },
    { kind = 'compaction_update', state = 'completed', tokensBefore = 5000, tokensAfter = 1000 },
    { kind = 'compaction_update', state = 'failed', message = 'the summary was cut off' },
    { kind = 'agent_message_chunk', text = 'ok' },
  })
  local text = table.concat(transcript(buf, r), '\n')
  for _, want in ipairs({
    'following AGENTS.md',
    'compaction queued: it runs when the current step ends',
    'compacting the conversation',
    'conversation compacted: ~5',
    'compaction failed: the summary was cut off',
  }) do
    H.eq('has ' .. want, text:find(want, 1, true) ~= nil, true)
  end
end)

H.case('typing in the input area survives streaming', function()
  local buf, r = new_renderer()
  local row = r:boundary_row()
  api.nvim_buf_set_lines(buf, row, -1, false, { 'my next', 'question' })
  api.nvim_win_set_cursor(0, { row + 2, 3 })
  r:user({ { type = 'text', text = 'q' } })
  feed(r, chunks('agent_message_chunk', 'streamed\nanswer', 2))
  r:update({ kind = 'tool_call', toolCallId = 'x', title = 'Run', status = 'in_progress' })
  H.eq('input kept', r:input_lines(), { 'my next', 'question' })
  H.eq('cursor stays on the input line', api.nvim_get_current_line(), 'question')
  H.eq(
    'transcript tail',
    vim.list_slice(transcript(buf, r), 7),
    { 'streamed', 'answer', '◐ Run' }
  )
  r:clear_input()
  H.eq('cleared input', r:input_lines(), { '' })
end)

H.case('5000-chunk answer renders incrementally and fast', function()
  local buf, r = new_renderer()
  r:user({ { type = 'text', text = 'long' } })
  local pieces, expected = {}, {}
  for i = 1, 5000 do
    local piece = (i % 50 == 0) and ('word' .. i .. '\n') or ('w' .. i .. ' ')
    pieces[i] = { kind = 'agent_message_chunk', text = piece }
    expected[i] = piece
  end
  local first_changed, touched_above = math.huge, 0
  local start_row = r:boundary_row() - 1
  api.nvim_buf_attach(buf, false, {
    on_lines = function(_, _, _, first)
      first_changed = math.min(first_changed, first)
      if first < start_row then
        touched_above = touched_above + 1
      end
    end,
  })
  local t0 = vim.uv.hrtime()
  feed(r, pieces)
  local ms = (vim.uv.hrtime() - t0) / 1e6
  local text =
    table.concat(api.nvim_buf_get_lines(buf, start_row + 1, r:boundary_row(), false), '\n')
  H.eq('final text equals the streamed text', text, table.concat(expected))
  H.eq('no change above the streaming line', touched_above, 0)
  H.check('5000 chunks under 1000 ms', ms < 1000, string.format('%.1f ms', ms))
  H.results.data.render_5000_ms = ms
end)

H.case('late updates of a cancelled turn stay out of the next turn', function()
  local buf, r = new_renderer()
  r:user({ { type = 'text', text = 'long' } }, { echo = true })
  feed(r, {
    { kind = 'user_message', content = { { type = 'text', text = 'long' } } },
    { kind = 'agent_message_chunk', text = 'partial' },
  })
  r:finish({ stopReason = 'cancelled' })
  r:user({ { type = 'text', text = 'short' } }, { echo = true })
  feed(r, {
    { kind = 'usage_update', inputTokens = 5, outputTokens = 1 },
    { kind = 'state_update', state = 'idle', stopReason = 'cancelled' },
    { kind = 'state_update', state = 'running' },
    { kind = 'user_message', content = { { type = 'text', text = 'short' } } },
    { kind = 'agent_message_chunk', text = 'ok' },
    { kind = 'usage_update', inputTokens = 7, outputTokens = 2 },
    { kind = 'state_update', state = 'idle', stopReason = 'end_turn' },
  })
  r:finish({ stopReason = 'end_turn' })
  H.eq('transcript', transcript(buf, r), {
    '# dsh',
    '',
    '## You',
    'long',
    '',
    '## dsh',
    'partial',
    '⊘ cancelled',
    '',
    '## You',
    'short',
    '',
    '## dsh',
    'ok',
    'tokens: 7 in (0% cached) · 2 out',
  })
end)

H.run()
