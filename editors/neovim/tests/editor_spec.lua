-- The `dsh/editor/*` handlers against REAL language servers beside a fake dsh server.
-- pytest provides $DSH_RUFF_CMD and $DSH_JEDI_CMD (JSON lists): `ruff server` reports the
-- diagnostics (pull), jedi-language-server the definitions, references, hovers, symbols
-- (and pushes its own diagnostics, with versions). The fake dsh server negotiates UTF-16
-- and sends each request the way the real server does (a server request answered in the
-- RPC coroutine); ruff is made to speak UTF-8 and jedi UTF-32, so every position crosses
-- encodings. The fake dsh server also claims the same providers: it must never be asked.
local H = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h') .. '/helpers.lua')
local F = require('fake_server')
local api = vim.api

local A = { 'from b import helper', '', 't = "é😀" + helper("x")' }
local B = { 'def helper(text):', '    """Return the text twice."""', '    return text * 2' }
local BROKEN = 'u = "é😀" + missing + helper("x")' -- F821 at UTF-16 12..19 (bytes 15..22, UTF-32 11..18)

local function project()
  local root = vim.fn.tempname()
  vim.fn.mkdir(root .. '/.git', 'p')
  vim.fn.writefile(A, root .. '/a.py')
  vim.fn.writefile(B, root .. '/b.py')
  vim.fn.writefile({ 'import os', '' }, root .. '/c.py')
  return vim.fn.resolve(root)
end

--- Offer the server only `encoding`.
local function speak(encoding)
  return function(params)
    params.capabilities.general = params.capabilities.general or {}
    params.capabilities.general.positionEncodings = { encoding }
  end
end

--- Fake dsh + ruff + jedi, `file` open in the current window; returns srv, dsh, bufnr, root.
local function boot(file)
  local root = project()
  require('dsh').setup({ root_markers = { '.git' } })
  local srv = F.new({}, {
    capabilities = {
      positionEncoding = 'utf-16',
      definitionProvider = true,
      referencesProvider = true,
      hoverProvider = true,
      workspaceSymbolProvider = true,
    },
  })
  vim.lsp.config('dsh', { cmd = srv.cmd })
  vim.lsp.config('ruff', {
    cmd = vim.json.decode(vim.env.DSH_RUFF_CMD),
    filetypes = { 'python' },
    root_markers = { '.git' },
    before_init = speak('utf-8'),
  })
  vim.lsp.config('jedi', {
    cmd = vim.json.decode(vim.env.DSH_JEDI_CMD),
    filetypes = { 'python' },
    root_markers = { '.git' },
    before_init = speak('utf-32'),
  })
  vim.lsp.enable({ 'ruff', 'jedi' })
  vim.cmd.cd(vim.fn.fnameescape(root))
  vim.cmd.edit(file or 'a.py')
  local bufnr = api.nvim_get_current_buf()
  local clients = {}
  H.wait('dsh, ruff and jedi to attach', 20000, function()
    for _, name in ipairs({ 'dsh', 'ruff', 'jedi' }) do
      clients[name] = vim.lsp.get_clients({ name = name, bufnr = bufnr })[1]
      if not (clients[name] and clients[name].initialized) then
        return false
      end
    end
    return true
  end)
  H.results.data.encodings = vim.tbl_map(function(c)
    return c.offset_encoding
  end, clients)
  H.eq('dsh speaks UTF-16', clients.dsh and clients.dsh.offset_encoding, 'utf-16')
  return srv, clients.dsh, bufnr, root
end

--- Send `method` from the dsh server and wait for the answer.
local function ask(srv, method, params, ms)
  local got
  srv:request(method, params, function(result, err)
    got = { result = result, err = err }
  end)
  H.wait(method .. ' answered', ms or 15000, function()
    return got ~= nil
  end)
  H.check(method .. ' answered without error', got and got.err == nil, got and got.err)
  return got and got.result or {}
end

--- Send the pending changes of `bufnr` to dsh; the version dsh now has.
local function flush(client, bufnr)
  require('vim.lsp._changetracking').flush(client, bufnr)
  return vim.lsp.util.buf_versions[bufnr]
end

local function ruff_diags(item)
  return vim.tbl_filter(function(d)
    return d.source == 'Ruff'
  end, item and item.diagnostics or {})
end

local function uri(root, name)
  return vim.uri_from_fname(root .. '/' .. name)
end

H.case('diagnostics of the version just written; none after the fix; a stale one never', function()
  local srv, dsh, a = boot('a.py')
  local doc = vim.uri_from_bufnr(a)
  -- The chat has the window: a.py is hidden, so Neovim would not refresh ruff's diagnostics.
  vim.cmd.enew()
  H.check('a.py hidden but loaded', api.nvim_buf_is_loaded(a) and vim.fn.bufwinid(a) == -1)
  api.nvim_buf_set_lines(a, 2, 3, false, { BROKEN })
  local v1 = flush(dsh, a)
  local sent = srv:messages('textDocument/didChange')
  H.eq('dsh got the version', sent[#sent].params.textDocument.version, v1)
  local r1 = ask(srv, 'dsh/editor/diagnostics', { uri = doc, version = v1, timeoutMs = 10000 })
  H.results.data.r1 = r1
  local it = r1.items and r1.items[1] or {}
  H.eq('one item for a.py', { #(r1.items or {}), it.uri }, { 1, doc })
  H.eq('for the version just written', it.version, v1)
  H.eq('every server reported on it', it.complete, true)
  local ruff = ruff_diags(it)
  H.eq('exactly the error introduced', #ruff, 1)
  H.eq('its code and severity', ruff[1] and { ruff[1].code, ruff[1].severity }, { 'F821', 1 })
  H.eq(
    'its range in UTF-16, after the non-ASCII text',
    ruff[1] and ruff[1].range,
    { start = { line = 2, character = 12 }, ['end'] = { line = 2, character = 19 } }
  )
  H.check('message names it', ruff[1] and ruff[1].message:find('missing', 1, true), ruff)

  api.nvim_buf_set_lines(a, 2, 3, false, { A[3] })
  local v2 = flush(dsh, a)
  local stale = ask(srv, 'dsh/editor/diagnostics', { uri = doc, version = v2, timeoutMs = 0 })
  H.results.data.stale = stale
  local st = stale.items and stale.items[1] or {}
  H.check('before any server reported on v2, it is not claimed', st.version ~= v2, st)
  H.eq('and the answer says so', st.complete, false)
  if st.version == v1 then
    H.eq('the old error is labelled with its own version', #ruff_diags(st), 1)
  end

  local r2 = ask(srv, 'dsh/editor/diagnostics', { uri = doc, version = v2, timeoutMs = 10000 })
  H.results.data.r2 = r2
  local it2 = r2.items and r2.items[1] or {}
  H.eq('the fixed version', { it2.version, it2.complete }, { v2, true })
  H.eq('no problems', it2.diagnostics, {})

  local now = ask(srv, 'dsh/editor/diagnostics', { uri = doc })
  H.eq('without a version: at once, what the editor has', now.items[1].version, v2)
  H.eq('dsh itself was never asked for diagnostics', #srv:messages('textDocument/diagnostic'), 0)
end)

H.case('diagnostics of a document not loaded, and of the workspace', function()
  local srv, _, _, root = boot('a.py')
  local c = uri(root, 'c.py')
  local r = ask(srv, 'dsh/editor/diagnostics', { uri = c })
  H.results.data.c = r
  local it = r.items and r.items[1] or {}
  H.eq('c.py loaded hidden', vim.fn.bufloaded(root .. '/c.py'), 1)
  H.eq('not listed, not shown', {
    vim.bo[vim.fn.bufnr(root .. '/c.py')].buflisted,
    vim.fn.bufwinid(root .. '/c.py'),
  }, { false, -1 })
  local ruff = ruff_diags(it)
  H.eq('the unused import', ruff[1] and { ruff[1].code, ruff[1].range.start }, {
    'F401',
    { line = 0, character = 7 },
  })
  H.check('with a version', type(it.version) == 'number', it)
  local all = ask(srv, 'dsh/editor/diagnostics', {})
  H.results.data.all = all
  local uris = vim.tbl_map(function(i)
    return i.uri
  end, all.items or {})
  H.check('the workspace answer lists c.py', vim.tbl_contains(uris, c), uris)
  H.check('and only documents with problems', not vim.tbl_contains(uris, uri(root, 'a.py')), uris)
end)

H.case('definition, references, hover and symbols across files in UTF-16', function()
  local srv, _, _, root = boot('b.py')
  local a, b = uri(root, 'a.py'), uri(root, 'b.py')
  -- `helper` on line 3 of a.py, after "é😀": UTF-16 column 12 (byte 15, UTF-32 11).
  local at = { textDocument = { uri = a }, position = { line = 2, character = 12 } }
  local def = ask(srv, 'dsh/editor/definition', at)
  H.results.data.definition = def
  H.eq('a.py was loaded for it', vim.fn.bufloaded(root .. '/a.py'), 1)
  H.eq('defined in b.py', def.locations, {
    {
      uri = b,
      range = { start = { line = 0, character = 4 }, ['end'] = { line = 0, character = 10 } },
    },
  })

  local refs =
    ask(srv, 'dsh/editor/references', vim.tbl_extend('force', at, { includeDeclaration = true }))
  H.results.data.references = refs
  local got = vim.tbl_map(function(l)
    return string.format(
      '%s:%d:%d-%d',
      vim.fs.basename(vim.uri_to_fname(l.uri)),
      l.range.start.line,
      l.range.start.character,
      l.range['end'].character
    )
  end, refs.locations or {})
  table.sort(got)
  H.eq('every reference, columns in UTF-16', got, { 'a.py:0:14-20', 'a.py:2:12-18', 'b.py:0:4-10' })

  local hover = ask(srv, 'dsh/editor/hover', at)
  H.results.data.hover = hover
  H.check('hover shows the signature', (hover.contents or ''):find('helper(text)', 1, true), hover)
  H.check(
    'and the docstring',
    (hover.contents or ''):find('Return the text twice.', 1, true),
    hover
  )

  local syms = ask(srv, 'dsh/editor/symbols', { query = 'helper' })
  H.results.data.symbols = syms
  local found
  for _, s in ipairs(syms.symbols or {}) do
    if s.name == 'helper' and s.location.uri == b then
      found = s
    end
  end
  H.check('the workspace symbol helper in b.py', found, syms)
  H.eq('a function', found and found.kind, 12)
  H.eq('on its line', found and found.location.range and found.location.range.start.line, 0)

  local none = ask(srv, 'dsh/editor/definition', {
    textDocument = { uri = uri(root, 'nowhere.py') },
    position = { line = 0, character = 0 },
  })
  H.eq('a file that does not exist: no locations', none.locations, {})
  for _, m in ipairs({ 'textDocument/definition', 'textDocument/references', 'textDocument/hover' }) do
    H.eq('dsh itself never asked: ' .. m, #srv:messages(m), 0)
  end
  H.eq('dsh itself never asked: workspace/symbol', #srv:messages('workspace/symbol'), 0)
end)

H.case('a push server without versions: its diagnostics describe the version last sent', function()
  local root = project()
  require('dsh').setup({ root_markers = { '.git' } })
  local srv = F.new({}, { capabilities = { positionEncoding = 'utf-16' } })
  vim.lsp.config('dsh', { cmd = srv.cmd })
  vim.cmd.edit(vim.fn.fnameescape(root .. '/a.py'))
  local buf = api.nvim_get_current_buf()
  local other = F.new({}, { other = true, capabilities = { positionEncoding = 'utf-32' } })
  vim.lsp.start({ name = 'pusher', cmd = other.cmd, root_dir = root }, { bufnr = buf })
  local dsh, pusher
  H.wait('both clients', 5000, function()
    dsh = vim.lsp.get_clients({ name = 'dsh', bufnr = buf })[1]
    pusher = vim.lsp.get_clients({ name = 'pusher', bufnr = buf })[1]
    return dsh and dsh.initialized and pusher and pusher.initialized or false
  end)
  local doc = vim.uri_from_bufnr(buf)
  local function publish(message)
    -- `helper` on line 3, after "é😀": UTF-32 11..17 (UTF-16 12..18)
    local range = { start = { line = 2, character = 11 }, ['end'] = { line = 2, character = 17 } }
    other:notify('textDocument/publishDiagnostics', {
      uri = doc,
      diagnostics = { { range = range, severity = 2, source = 'pusher', message = message } },
    })
  end
  local function sent_to_pusher()
    local changes = other:messages('textDocument/didChange')
    return #changes > 0 and changes[#changes].params.textDocument.version
      or other:messages('textDocument/didOpen')[1].params.textDocument.version
  end
  local v1 = vim.lsp.util.buf_versions[buf]
  publish('about v1')
  local r1 = ask(srv, 'dsh/editor/diagnostics', { uri = doc, version = v1, timeoutMs = 5000 })
  local it1 = r1.items and r1.items[1] or {}
  H.eq('labelled with the version last sent', { it1.version, it1.complete }, { v1, true })
  H.eq('its range in UTF-16', it1.diagnostics and it1.diagnostics[1].range, {
    start = { line = 2, character = 12 },
    ['end'] = { line = 2, character = 18 },
  })

  api.nvim_buf_set_lines(buf, 0, 1, false, { 'from b import helper  # edited' })
  local v2 = flush(dsh, buf)
  local stale = ask(srv, 'dsh/editor/diagnostics', { uri = doc, version = v2, timeoutMs = 0 })
  local st = stale.items and stale.items[1] or {}
  H.eq('the pusher got v2 at once', sent_to_pusher(), v2)
  H.eq('its old report is not passed off as v2', { st.version, st.complete }, { v1, false })

  local started = vim.uv.now()
  vim.defer_fn(function()
    publish('about v2')
  end, 200)
  local r2 = ask(srv, 'dsh/editor/diagnostics', { uri = doc, version = v2, timeoutMs = 5000 })
  local it2 = r2.items and r2.items[1] or {}
  H.eq('answered once it reported on v2', { it2.version, it2.complete }, { v2, true })
  H.eq('with that report', it2.diagnostics and it2.diagnostics[1].message, 'about v2')
  H.check('not at the timeout', vim.uv.now() - started < 4000, vim.uv.now() - started)

  api.nvim_buf_set_lines(buf, 1, 2, false, { '# v3' })
  local v3 = flush(dsh, buf)
  started = vim.uv.now()
  local r3 = ask(srv, 'dsh/editor/diagnostics', { uri = doc, version = v3, timeoutMs = 300 })
  local it3 = r3.items and r3.items[1] or {}
  H.eq('no report on v3 by the timeout', { it3.version, it3.complete }, { v2, false })
  H.check('answered at the timeout', vim.uv.now() - started >= 300, vim.uv.now() - started)
  H.eq(
    'a plain-text buffer with no server: nothing to report, for that version',
    (function()
      vim.cmd.edit(vim.fn.fnameescape(root .. '/notes.txt'))
      local txt = api.nvim_get_current_buf()
      local v = flush(dsh, txt)
      local r = ask(
        srv,
        'dsh/editor/diagnostics',
        { uri = vim.uri_from_bufnr(txt), version = v, timeoutMs = 5000 }
      )
      local it = r.items and r.items[1] or {}
      return { it.version == v, it.complete, it.diagnostics }
    end)(),
    { true, true, {} }
  )
end)

H.run()
