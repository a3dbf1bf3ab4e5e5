--- The editor's language servers lent to the agent: the `dsh/editor/*` request handlers.
---
--- The dsh server asks (docs/protocol.md, "The editor's language servers") and the plugin
--- answers from the *other* language servers attached to the document — never from the dsh
--- client itself: `diagnostics` from `vim.diagnostic` (the namespaces of those clients),
--- `definition` / `references` / `hover` / `symbols` by `client:request` to every client that
--- supports the method, results merged in client order. Positions are converted to and from
--- the dsh connection's negotiated encoding (each other client has its own; `vim.diagnostic`
--- holds byte columns). A document that is not loaded is loaded hidden (`bufadd` + `bufload`,
--- filetype detected) so its servers attach; the answer waits a bounded time for them.
---
--- Version-exact diagnostics: `install()` wraps the `textDocument/publishDiagnostics` and
--- `textDocument/diagnostic` handlers and watches `LspNotify` to record, per buffer and per
--- client, which document version each server's diagnostics describe (a push's `version`,
--- else the version last sent to that client; a pull's request-time version). A request for
--- version *v* pulls diagnostics itself from the pull servers (Neovim refreshes them only for
--- a visible buffer) and answers once every reporting server described *v* or later, or at
--- `timeoutMs`. Every handler answers asynchronously: it yields the coroutine Neovim's RPC
--- layer runs each server request in, so nothing waits with `vim.wait` and the user's
--- typing is never held up; no handler raises.

local api = vim.api

local M = {}

--- What the plugin advertises in `capabilities.experimental.dsh.editor`.
M.capabilities =
  { diagnostics = true, definition = true, references = true, symbols = true, hover = true }

--- How long a document loaded for a request waits for its language servers to attach.
M.attach_wait_ms = 5000
--- How long a loaded document with no language server attached waits for one to start.
M.attach_grace_ms = 500
--- How long one request to the other language servers may take before the answer goes out
--- with what came in (the dsh server has its own, shorter deadline and ignores late answers).
M.request_wait_ms = 10000
--- How long the diagnostics of a document loaded for the request are awaited.
M.loaded_diagnostics_wait_ms = 1500

local PULL = 'textDocument/diagnostic'
local PUSH = 'textDocument/publishDiagnostics'

---@class dsh.editor.Report
---@field client_id integer
---@field pull boolean
---@field version? integer The document version the diagnostics describe (nil: unknown).

local sent = {} ---@type table<integer, table<integer, integer>> bufnr → client id → version
local reports = {} ---@type table<integer, table<string, dsh.editor.Report>> bufnr → key → report
local pushers = {} ---@type table<integer, true> clients that published diagnostics once
local waiters = {} ---@type table<integer, (fun(): boolean)[]> bufnr → checks (true: done)
local wrapped = setmetatable({}, { __mode = 'k' }) ---@type table<function, true>
local installed = false

-- Buffers and positions ---------------------------------------------------------------

--- The loaded buffer of `uri`, if any.
---@param uri string
---@return integer?
local function loaded_buffer(uri)
  return require('dsh.save').buffer(uri)
end

--- The (existing) buffer number of `uri`, loaded or not, if any.
---@param uri string
---@return integer?
local function any_buffer(uri)
  local ok, fname = pcall(vim.uri_to_fname, uri)
  if not ok then
    return nil
  end
  local bufnr = vim.fn.bufnr(fname)
  return bufnr > 0 and bufnr or loaded_buffer(uri)
end

--- Lines of documents, read once per answer: the buffer's when loaded, else the file's.
---@class dsh.editor.Lines
---@field bufs table<string, integer|false>
---@field files table<string, string[]|false>
local Lines = {}
Lines.__index = Lines

---@return dsh.editor.Lines
local function new_lines()
  return setmetatable({ bufs = {}, files = {} }, Lines)
end

---@param uri string
---@param line integer 0-based
---@return string?
function Lines:get(uri, line)
  local bufnr = self.bufs[uri]
  if bufnr == nil then
    bufnr = loaded_buffer(uri) or false
    self.bufs[uri] = bufnr
  end
  if bufnr and api.nvim_buf_is_loaded(bufnr) then
    return api.nvim_buf_get_lines(bufnr, line, line + 1, false)[1]
  end
  local lines = self.files[uri]
  if lines == nil then
    local ok, fname = pcall(vim.uri_to_fname, uri)
    lines = ok and vim.fn.filereadable(fname) == 1 and vim.fn.readfile(fname) or false
    self.files[uri] = lines
  end
  return lines and lines[line + 1] or nil
end

--- `character` (in encoding `from`) of `text` as a character in encoding `to`.
---@param text? string
---@param character integer
---@param from string
---@param to string
---@return integer
local function convert_character(text, character, from, to)
  if from == to or text == nil then
    return character
  end
  local byte = vim.str_byteindex(text, from, character, false)
  return vim.str_utfindex(text, to, byte, false)
end

---@param lines dsh.editor.Lines
---@param uri string
---@param pos lsp.Position
---@param from string
---@param to string
---@return lsp.Position
local function convert_position(lines, uri, pos, from, to)
  local line = tonumber(pos.line) or 0
  local text = from ~= to and lines:get(uri, line) or nil
  return { line = line, character = convert_character(text, tonumber(pos.character) or 0, from, to) }
end

---@param lines dsh.editor.Lines
---@param uri string
---@param range lsp.Range
---@param from string
---@param to string
---@return lsp.Range
local function convert_range(lines, uri, range, from, to)
  return {
    start = convert_position(lines, uri, range.start, from, to),
    ['end'] = convert_position(lines, uri, range['end'], from, to),
  }
end

--- A byte column of line `lnum` of `bufnr` as a character in `encoding`.
---@param bufnr integer
---@param lnum integer 0-based
---@param col integer byte
---@param encoding string
---@return integer
local function character_of(bufnr, lnum, col, encoding)
  local text = api.nvim_buf_get_lines(bufnr, lnum, lnum + 1, false)[1]
  if text == nil then
    return col
  end
  return vim.str_utfindex(text, encoding, math.min(col, #text), false)
end

-- Clients ---------------------------------------------------------------------------

---@param client vim.lsp.Client
---@param dsh_id? integer
---@return boolean
local function is_dsh(client, dsh_id)
  return client.id == dsh_id
    or client.name == 'dsh'
    or vim.tbl_get(client.server_capabilities or {}, 'experimental', 'dsh') ~= nil
end

--- The initialized non-dsh clients attached to `bufnr` (all running ones without a buffer)
--- that support `method`.
---@param bufnr? integer
---@param method string
---@param dsh_id? integer
---@return vim.lsp.Client[]
local function others(bufnr, method, dsh_id)
  local out = {}
  for _, client in ipairs(vim.lsp.get_clients({ bufnr = bufnr })) do
    if
      client.initialized
      and not client:is_stopped()
      and not is_dsh(client, dsh_id)
      and client:supports_method(method, bufnr)
    then
      out[#out + 1] = client
    end
  end
  return out
end

---@param ctx table
---@return string encoding of the dsh connection
local function dsh_encoding(ctx)
  local client = ctx and ctx.client_id and vim.lsp.get_client_by_id(ctx.client_id)
  return client and client.offset_encoding or 'utf-16'
end

-- Waiting -----------------------------------------------------------------------------

local poll = require('dsh.poll').poll

--- Wake the diagnostics waiters of `bufnr` (each check returns true when it is done).
---@param bufnr integer
local function wake(bufnr)
  local list = waiters[bufnr]
  if not list then
    return
  end
  local keep = {}
  for _, check in ipairs(list) do
    if not check() then
      keep[#keep + 1] = check
    end
  end
  waiters[bufnr] = #keep > 0 and keep or nil
end

--- The loaded buffer of `uri`; loads it hidden (filetype detected, so servers attach) and
--- waits up to `attach_wait_ms` for a client supporting `method` when it was not loaded.
--- `cb(bufnr, loaded_now)`, or `cb(nil)` when there is no such file.
---@param uri string
---@param method string
---@param dsh_id integer
---@param cb fun(bufnr?: integer, loaded_now?: boolean)
local function with_buffer(uri, method, dsh_id, cb)
  local bufnr = loaded_buffer(uri)
  if bufnr then
    return cb(bufnr, false)
  end
  local ok, fname = pcall(vim.uri_to_fname, uri)
  if not ok or not vim.startswith(uri, 'file:') or vim.fn.filereadable(fname) ~= 1 then
    return cb(nil)
  end
  bufnr = vim.fn.bufadd(fname)
  local loaded = pcall(vim.fn.bufload, bufnr)
  if not loaded or not api.nvim_buf_is_loaded(bufnr) then
    return cb(nil)
  end
  if vim.bo[bufnr].filetype == '' then
    local ft = vim.filetype.match({ buf = bufnr })
    if ft then
      vim.bo[bufnr].filetype = ft -- FileType: vim.lsp.enable()d servers attach
    end
  end
  local start = vim.uv.now()
  poll(M.attach_wait_ms, function()
    if #others(bufnr, method, dsh_id) > 0 then
      return true
    end
    local attached = false
    for _, client in ipairs(vim.lsp.get_clients({ bufnr = bufnr })) do
      if not is_dsh(client, dsh_id) then
        if not client.initialized then
          return false -- a server is still starting for it
        end
        attached = true
      end
    end
    -- Servers that attached answer what they can; with none, give one a moment to start.
    return attached or vim.uv.now() - start >= M.attach_grace_ms
  end, function()
    cb(bufnr, true)
  end)
end

--- Send `method` to each of `clients` (params from `params_for(client)`, nil: skip it);
--- `cb(answers)` with `{client, result}` in client order once all answered or after
--- `request_wait_ms`.
---@param clients vim.lsp.Client[]
---@param method string
---@param params_for fun(client: vim.lsp.Client): table?
---@param bufnr? integer
---@param cb fun(answers: {client: vim.lsp.Client, result: any}[])
local function request_all(clients, method, params_for, bufnr, cb)
  local results, pending, finished = {}, 0, false
  local timer ---@type uv.uv_timer_t?
  local function finish()
    if finished then
      return
    end
    finished = true
    if timer and not timer:is_closing() then
      timer:close()
    end
    local answers = {}
    for i, client in ipairs(clients) do
      if results[i] ~= nil then
        answers[#answers + 1] = { client = client, result = results[i] }
      end
    end
    cb(answers)
  end
  for i, client in ipairs(clients) do
    local ok_params, params = pcall(params_for, client)
    if ok_params and params then
      pending = pending + 1
      local ok = client:request(method, params, function(err, result)
        if not err and result ~= nil and result ~= vim.NIL then
          results[i] = result
        end
        pending = pending - 1
        if pending == 0 then
          finish()
        end
      end, bufnr)
      if not ok then
        pending = pending - 1
      end
    end
  end
  if pending == 0 then
    return finish()
  end
  timer = assert(vim.uv.new_timer())
  timer:start(M.request_wait_ms, 0, vim.schedule_wrap(finish))
end

-- Version bookkeeping -----------------------------------------------------------------

---@param bufnr integer
---@param report dsh.editor.Report
local function record(bufnr, report)
  reports[bufnr] = reports[bufnr] or {}
  reports[bufnr][report.client_id .. (report.pull and ':pull' or ':push')] = report
  wake(bufnr)
end

---@param bufnr integer
---@param client_id integer
---@param pull boolean
---@return dsh.editor.Report?
local function report_of(bufnr, client_id, pull)
  return (reports[bufnr] or {})[client_id .. (pull and ':pull' or ':push')]
end

--- A push: its `version`, else the version last sent to that client.
---@param err any
---@param params lsp.PublishDiagnosticsParams
---@param ctx lsp.HandlerContext
local function on_push(err, params, ctx)
  if err or type(params) ~= 'table' or type(params.uri) ~= 'string' then
    return
  end
  pushers[ctx.client_id] = true
  local bufnr = any_buffer(params.uri)
  if not bufnr then
    return
  end
  local version = type(params.version) == 'number' and params.version
    or (sent[bufnr] or {})[ctx.client_id]
  record(bufnr, { client_id = ctx.client_id, pull = false, version = version or nil })
end

--- A pull answer: the version the request was sent for (Neovim flushes changes first).
---@param err any
---@param result lsp.DocumentDiagnosticReport?
---@param ctx lsp.HandlerContext
local function on_pull(err, result, ctx)
  if err or type(result) ~= 'table' then
    return
  end
  local uri = vim.tbl_get(ctx, 'params', 'textDocument', 'uri')
  local bufnr = ctx.bufnr or (uri and any_buffer(uri))
  if not bufnr then
    return
  end
  local version = ctx.bufnr and ctx.version or (sent[bufnr] or {})[ctx.client_id]
  record(bufnr, { client_id = ctx.client_id, pull = true, version = version })
end

--- `tbl[method]` runs `observe(err, result, ctx)` after the original handler.
---@param tbl table
---@param method string
---@param observe fun(err: any, result: any, ctx: table)
local function wrap(tbl, method, observe)
  local original = rawget(tbl, method)
  if type(original) ~= 'function' or wrapped[original] then
    return
  end
  local function handler(err, result, ctx, config)
    local r1, r2 = original(err, result, ctx, config)
    local ok, oops = pcall(observe, err, result, ctx)
    if not ok then
      require('dsh.client').record_error('diagnostics bookkeeping: ' .. tostring(oops))
    end
    return r1, r2
  end
  wrapped[handler] = true
  tbl[method] = handler
end

--- Start the version bookkeeping (idempotent; called when the dsh config loads).
function M.install()
  if installed then
    return
  end
  installed = true
  wrap(vim.lsp.handlers, PUSH, on_push)
  wrap(vim.lsp.handlers, PULL, on_pull)
  local group = api.nvim_create_augroup('dsh.editor', { clear = true })
  api.nvim_create_autocmd('LspNotify', {
    group = group,
    desc = 'dsh: the document version last sent to each language server',
    callback = function(args)
      local data = args.data or {}
      local doc = vim.tbl_get(data, 'params', 'textDocument')
      if
        (data.method ~= 'textDocument/didChange' and data.method ~= 'textDocument/didOpen')
        or type(doc) ~= 'table'
        or type(doc.version) ~= 'number'
      then
        return
      end
      local bufnr = any_buffer(doc.uri)
      if bufnr then
        sent[bufnr] = sent[bufnr] or {}
        sent[bufnr][data.client_id] = doc.version
      end
    end,
  })
  api.nvim_create_autocmd('LspAttach', {
    group = group,
    desc = "dsh: observe a client's own diagnostics handlers",
    callback = function(args)
      local client = vim.lsp.get_client_by_id(args.data.client_id)
      if client and type(client.handlers) == 'table' then
        wrap(client.handlers, PUSH, on_push)
        wrap(client.handlers, PULL, on_pull)
      end
    end,
  })
  api.nvim_create_autocmd('BufWipeout', {
    group = group,
    callback = function(args)
      sent[args.buf], reports[args.buf], waiters[args.buf] = nil, nil, nil
    end,
  })
end

-- dsh/editor/diagnostics ----------------------------------------------------------------

---@class dsh.editor.Reporter
---@field client vim.lsp.Client
---@field pull boolean

--- The servers that report diagnostics on `bufnr`: pull servers, and push servers that
--- have published (for this buffer, when they can also be pulled).
---@param bufnr integer
---@param dsh_id integer
---@return dsh.editor.Reporter[]
local function reporters(bufnr, dsh_id)
  local out = {}
  for _, client in ipairs(vim.lsp.get_clients({ bufnr = bufnr })) do
    if client.initialized and not client:is_stopped() and not is_dsh(client, dsh_id) then
      local pull = client:supports_method(PULL, bufnr)
      if pull then
        out[#out + 1] = { client = client, pull = true }
      end
      if (pushers[client.id] and not pull) or report_of(bufnr, client.id, false) then
        out[#out + 1] = { client = client, pull = false }
      end
    end
  end
  return out
end

---@param rep dsh.editor.Reporter
---@return integer
local function namespace_of(rep)
  return vim.lsp.diagnostic.get_namespace(rep.client.id, rep.pull)
end

--- `vim.diagnostic` entries of `bufnr` (only `namespaces` when given, never dsh's own) as
--- LSP diagnostics in `encoding`.
---@param bufnr integer
---@param namespaces? integer[]
---@param dsh_id integer
---@param encoding string
---@return table[]
local function lsp_diagnostics(bufnr, namespaces, dsh_id, encoding)
  local entries = {}
  if namespaces then
    for _, ns in ipairs(namespaces) do
      vim.list_extend(entries, vim.diagnostic.get(bufnr, { namespace = ns }))
    end
  else
    local own = {
      [vim.lsp.diagnostic.get_namespace(dsh_id, false)] = true,
      [vim.lsp.diagnostic.get_namespace(dsh_id, true)] = true,
    }
    for _, d in ipairs(vim.diagnostic.get(bufnr)) do
      if not own[d.namespace] then
        entries[#entries + 1] = d
      end
    end
  end
  local out = {}
  for _, d in ipairs(entries) do
    local end_lnum = d.end_lnum or d.lnum
    local lsp = vim.tbl_get(d, 'user_data', 'lsp') or {}
    out[#out + 1] = {
      range = {
        start = { line = d.lnum, character = character_of(bufnr, d.lnum, d.col, encoding) },
        ['end'] = {
          line = end_lnum,
          character = character_of(bufnr, end_lnum, d.end_col or d.col, encoding),
        },
      },
      severity = d.severity,
      code = lsp.code or d.code,
      source = d.source,
      message = d.message,
    }
  end
  return out
end

--- The version every reporter's diagnostics describe, if they agree.
---@param bufnr integer
---@param reps dsh.editor.Reporter[]
---@return integer?
local function common_version(bufnr, reps)
  local version
  for _, rep in ipairs(reps) do
    local r = report_of(bufnr, rep.client.id, rep.pull)
    if not r or not r.version or (version and version ~= r.version) then
      return nil
    end
    version = r.version
  end
  return version
end

--- Whether every reporter described `version` or a later one.
---@param bufnr integer
---@param reps dsh.editor.Reporter[]
---@param version integer
---@return boolean
local function all_reported(bufnr, reps, version)
  for _, rep in ipairs(reps) do
    local r = report_of(bufnr, rep.client.id, rep.pull)
    if not r or not r.version or r.version < version then
      return false
    end
  end
  return true
end

--- The answer item of `bufnr` for version `want` (nil: whatever is there).
---@param bufnr integer
---@param want? integer
---@param dsh_id integer
---@param encoding string
---@return table
local function item(bufnr, want, dsh_id, encoding)
  local reps = reporters(bufnr, dsh_id)
  local uri = vim.uri_from_bufnr(bufnr)
  --- The item at `version` with the diagnostics of the reporters' `namespaces` (nil: all).
  local function answer(version, complete, namespaces)
    local diagnostics = lsp_diagnostics(bufnr, namespaces, dsh_id, encoding)
    return { uri = uri, version = version, complete = complete, diagnostics = diagnostics }
  end
  if want == nil then
    return answer(common_version(bufnr, reps) or vim.NIL, true, nil)
  end
  if #reps == 0 then -- no server reports on this document: it has no problems to report
    return { uri = uri, version = want, complete = true, diagnostics = {} }
  end
  local at_want, all = {}, {}
  for _, rep in ipairs(reps) do
    local r = report_of(bufnr, rep.client.id, rep.pull)
    all[#all + 1] = namespace_of(rep)
    if r and r.version == want then
      at_want[#at_want + 1] = namespace_of(rep)
    end
  end
  if #at_want > 0 then
    return answer(want, #at_want == #reps, at_want)
  end
  return answer(common_version(bufnr, reps) or vim.NIL, false, all)
end

--- Send the pending changes of `bufnr` to its other clients and pull fresh diagnostics
--- from those that have not described `version` yet.
---@param bufnr integer
---@param version integer
---@param dsh_id integer
local function refresh(bufnr, version, dsh_id)
  for _, client in ipairs(vim.lsp.get_clients({ bufnr = bufnr })) do
    if not is_dsh(client, dsh_id) then
      pcall(function()
        require('vim.lsp._changetracking').flush(client, bufnr)
      end)
    end
  end
  for _, rep in ipairs(reporters(bufnr, dsh_id)) do
    local r = report_of(bufnr, rep.client.id, rep.pull)
    if rep.pull and not (r and r.version and r.version >= version) then
      local client = rep.client
      client:request(
        PULL,
        { textDocument = { uri = vim.uri_from_bufnr(bufnr) } },
        function(err, result, ctx)
          -- A failed or cancelled pull (Neovim cancels pending pulls when it refreshes itself)
          -- is dropped quietly: the stock handler would show the error as a message.
          if err then
            return
          end
          local handler = client.handlers[PULL] or vim.lsp.handlers[PULL]
          handler(err, result, ctx)
          if not wrapped[handler] then
            on_pull(err, result, ctx)
          end
        end,
        bufnr
      )
    end
  end
end

--- Answer `dsh/editor/diagnostics` (see the module doc); `cb(result)`.
---@param params table {uri?, version?, timeoutMs?}
---@param ctx table
---@param cb fun(result: table)
function M.diagnostics(params, ctx, cb)
  M.install()
  local dsh_id, encoding = ctx.client_id, dsh_encoding(ctx)
  if type(params.uri) ~= 'string' then
    local items, seen = {}, {}
    for _, d in ipairs(vim.diagnostic.get(nil)) do
      local bufnr = d.bufnr
      if
        bufnr
        and not seen[bufnr]
        and api.nvim_buf_is_valid(bufnr)
        and vim.bo[bufnr].buftype == ''
        and api.nvim_buf_get_name(bufnr) ~= ''
      then
        seen[bufnr] = true
        local it = item(bufnr, nil, dsh_id, encoding)
        if #it.diagnostics > 0 then
          items[#items + 1] = it
        end
      end
    end
    return cb({ items = items })
  end
  local want = type(params.version) == 'number' and params.version or nil
  local timeout = math.max(0, math.min(tonumber(params.timeoutMs) or 0, 60000))
  with_buffer(params.uri, PULL, dsh_id, function(bufnr, loaded_now)
    if not bufnr then
      return cb({ items = {} })
    end
    if loaded_now and not want then -- just opened: await its first diagnostics
      want = vim.lsp.util.buf_versions[bufnr]
      timeout = math.max(timeout, M.loaded_diagnostics_wait_ms)
    end
    if not want then
      return cb({ items = { item(bufnr, nil, dsh_id, encoding) } })
    end
    refresh(bufnr, want, dsh_id)
    local answered = false
    local timer ---@type uv.uv_timer_t?
    local function answer(complete_in_time)
      if answered then
        return
      end
      answered = true
      if timer and not timer:is_closing() then
        timer:close()
      end
      local it = item(bufnr, want, dsh_id, encoding)
      if not complete_in_time then
        it.complete = false
      end
      cb({ items = { it } })
    end
    local function check()
      if answered then
        return true
      end
      if all_reported(bufnr, reporters(bufnr, dsh_id), want) then
        answer(true)
        return true
      end
      return false
    end
    if check() then
      return
    end
    if timeout == 0 then
      return answer(false)
    end
    waiters[bufnr] = waiters[bufnr] or {}
    table.insert(waiters[bufnr], check)
    timer = assert(vim.uv.new_timer())
    timer:start(
      timeout,
      0,
      vim.schedule_wrap(function()
        if not check() then
          answer(false)
        end
      end)
    )
  end)
end

-- dsh/editor/definition, references, hover, symbols --------------------------------------

--- Locations of a definition/references answer (Location, Location[], LocationLink[]).
---@param result any
---@return {uri: string, range: lsp.Range}[]
local function locations_of(result)
  if type(result) ~= 'table' then
    return {}
  end
  if result.uri or result.targetUri then
    result = { result }
  end
  local out = {}
  for _, loc in ipairs(result) do
    if type(loc) == 'table' then
      if loc.targetUri then
        out[#out + 1] = { uri = loc.targetUri, range = loc.targetSelectionRange or loc.targetRange }
      elseif loc.uri and loc.range then
        out[#out + 1] = { uri = loc.uri, range = loc.range }
      end
    end
  end
  return out
end

--- A list that keeps the first item of each key, in order: `add(key, item)` appends `item`
--- unless an item of that key is already in `items`.
---@return table items
---@return fun(key: string, item: any) add
local function unique_list()
  local items, seen = {}, {}
  return items,
    function(key, entry)
      if not seen[key] then
        seen[key] = true
        items[#items + 1] = entry
      end
    end
end

---@param loc {uri: string, range: lsp.Range}
---@return string
local function location_key(loc)
  local s, e = loc.range.start, loc.range['end']
  return table.concat({ loc.uri, s.line, s.character, e.line, e.character }, ':')
end

--- The request params of `params` (dsh encoding) for `client` (its encoding).
---@param params table {textDocument, position, ...}
---@param bufnr integer
---@param encoding string dsh's
---@param lines dsh.editor.Lines
---@param extra? table
---@return fun(client: vim.lsp.Client): table
local function position_params(params, bufnr, encoding, lines, extra)
  local uri = vim.uri_from_bufnr(bufnr)
  return function(client)
    return vim.tbl_extend('force', {
      textDocument = { uri = uri },
      position = convert_position(lines, uri, params.position, encoding, client.offset_encoding),
    }, extra or {})
  end
end

---@param method string
---@param extra? fun(params: table): table
---@return fun(params: table, ctx: table, cb: fun(result: table))
local function locations_handler(method, extra)
  return function(params, ctx, cb)
    M.install()
    local uri = vim.tbl_get(params, 'textDocument', 'uri')
    if type(uri) ~= 'string' or type(params.position) ~= 'table' then
      return cb({ locations = {} })
    end
    local encoding = dsh_encoding(ctx)
    with_buffer(uri, method, ctx.client_id, function(bufnr)
      if not bufnr then
        return cb({ locations = {} })
      end
      local lines = new_lines()
      local clients = others(bufnr, method, ctx.client_id)
      local make = position_params(params, bufnr, encoding, lines, extra and extra(params))
      request_all(clients, method, make, bufnr, function(answers)
        local out, add = unique_list()
        for _, answer in ipairs(answers) do
          for _, loc in ipairs(locations_of(answer.result)) do
            local converted = {
              uri = loc.uri,
              range = convert_range(
                lines,
                loc.uri,
                loc.range,
                answer.client.offset_encoding,
                encoding
              ),
            }
            add(location_key(converted), converted)
          end
        end
        cb({ locations = out })
      end)
    end)
  end
end

--- Answer `dsh/editor/definition`: `cb({locations})`.
M.definition = locations_handler('textDocument/definition')

--- Answer `dsh/editor/references` (`includeDeclaration` defaults to true): `cb({locations})`.
M.references = locations_handler('textDocument/references', function(params)
  return { context = { includeDeclaration = params.includeDeclaration ~= false } }
end)

--- Hover contents (MarkupContent, MarkedString, MarkedString[]) as Markdown.
---@param contents any
---@return string
local function markdown_of(contents)
  if type(contents) == 'string' then
    return contents
  end
  if type(contents) ~= 'table' then
    return ''
  end
  if contents.kind then
    return contents.value or ''
  end
  if contents.language then
    return '```' .. contents.language .. '\n' .. (contents.value or '') .. '\n```'
  end
  local parts = {}
  for _, part in ipairs(contents) do
    local text = markdown_of(part)
    if text ~= '' then
      parts[#parts + 1] = text
    end
  end
  return table.concat(parts, '\n\n')
end

--- Answer `dsh/editor/hover`: `cb({contents})`, the hovers of every server as Markdown.
---@param params table {textDocument, position}
---@param ctx table
---@param cb fun(result: table)
function M.hover(params, ctx, cb)
  M.install()
  local uri = vim.tbl_get(params, 'textDocument', 'uri')
  if type(uri) ~= 'string' or type(params.position) ~= 'table' then
    return cb({ contents = '' })
  end
  local method = 'textDocument/hover'
  local encoding = dsh_encoding(ctx)
  with_buffer(uri, method, ctx.client_id, function(bufnr)
    if not bufnr then
      return cb({ contents = '' })
    end
    local clients = others(bufnr, method, ctx.client_id)
    local make = position_params(params, bufnr, encoding, new_lines())
    request_all(clients, method, make, bufnr, function(answers)
      local parts = {}
      for _, answer in ipairs(answers) do
        local text = vim.trim(markdown_of(answer.result.contents))
        if text ~= '' then
          parts[#parts + 1] = text
        end
      end
      cb({ contents = table.concat(parts, '\n\n') })
    end)
  end)
end

--- Answer `dsh/editor/symbols` from `workspace/symbol` of every running non-dsh client.
---@param params table {query}
---@param ctx table
---@param cb fun(result: table)
function M.symbols(params, ctx, cb)
  M.install()
  local method = 'workspace/symbol'
  local encoding = dsh_encoding(ctx)
  local query = type(params.query) == 'string' and params.query or ''
  local lines = new_lines()
  request_all(
    others(nil, method, ctx.client_id),
    method,
    function()
      return { query = query }
    end,
    nil,
    function(answers)
      local out, add = unique_list()
      for _, answer in ipairs(answers) do
        for _, sym in ipairs(type(answer.result) == 'table' and answer.result or {}) do
          local loc = type(sym) == 'table' and sym.location
          if type(loc) == 'table' and type(loc.uri) == 'string' then
            local location = { uri = loc.uri }
            if type(loc.range) == 'table' then
              location.range =
                convert_range(lines, loc.uri, loc.range, answer.client.offset_encoding, encoding)
            end
            local entry = {
              name = sym.name,
              kind = sym.kind,
              containerName = sym.containerName,
              location = location,
            }
            local key = table.concat({
              tostring(sym.name),
              tostring(sym.kind),
              location.range and location_key(location) or loc.uri,
            }, '|')
            add(key, entry)
          end
        end
      end
      cb({ symbols = out })
    end
  )
end

-- LSP handlers ------------------------------------------------------------------------

--- The LSP handler of an answering function: runs it, yields the RPC coroutine until it
--- calls back, and returns its result (an error response when it fails).
---@param fn fun(params: table, ctx: table, cb: fun(result: table))
---@return fun(err: any, params: table, ctx: table): table?, table?
function M.handler(fn)
  return function(_, params, ctx)
    local co = coroutine.running()
    local done, waiting, result = false, false, nil
    local ok, err = pcall(fn, type(params) == 'table' and params or {}, ctx or {}, function(r)
      if done then
        return
      end
      done, result = true, r
      if waiting then
        vim.schedule(function()
          coroutine.resume(co)
        end)
      end
    end)
    if not ok then
      return nil, vim.lsp.rpc_response_error(vim.lsp.protocol.ErrorCodes.InternalError, err)
    end
    if not done then
      if not co then
        return nil,
          vim.lsp.rpc_response_error(
            vim.lsp.protocol.ErrorCodes.InternalError,
            'dsh: editor requests must be handled in a coroutine'
          )
      end
      waiting = true
      coroutine.yield()
    end
    return result
  end
end

--- The `handlers` entries of the dsh LSP config.
---@return table<string, function>
function M.handlers()
  return {
    ['dsh/editor/diagnostics'] = M.handler(M.diagnostics),
    ['dsh/editor/definition'] = M.handler(M.definition),
    ['dsh/editor/references'] = M.handler(M.references),
    ['dsh/editor/symbols'] = M.handler(M.symbols),
    ['dsh/editor/hover'] = M.handler(M.hover),
  }
end

return M
