--- Test harness for scripts run as `nvim --headless --clean -l tests/<file>.lua`.
---
--- Every script: puts the plugin on the runtimepath, registers cases with `H.case`, and
--- ends with `H.run()`, which runs the case named by $DSH_CASE (all cases when unset)
--- under a deadline ($DSH_DEADLINE seconds, default 20), writes
--- `{checks = [{case, name, ok, detail}], data = {...}, error?}` as JSON to $DSH_OUT
--- and exits 0 when every check passed, 1 otherwise. Nothing relies on stdout.

local H = {}

local uv = vim.uv

H.root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h')
H.results = { checks = {}, data = {} }
H.current = nil
local cases, order = {}, {}
local finished = false

vim.opt.rtp:prepend(H.root)
package.path = H.root .. '/tests/?.lua;' .. package.path
vim.opt.swapfile = false
vim.opt.shadafile = 'NONE'
vim.cmd('runtime plugin/dsh.lua')

--- Write the results file and exit.
---@param code? integer
function H.finish(code)
  if finished then
    return
  end
  finished = true
  local ok = code == nil or code == 0
  for _, check in ipairs(H.results.checks) do
    ok = ok and check.ok
  end
  if #H.results.checks == 0 and not H.results.error then
    H.results.error = 'no checks ran'
    ok = false
  end
  local out = vim.env.DSH_OUT
  if out and out ~= '' then
    local f = assert(io.open(out, 'w'))
    f:write(vim.json.encode(H.results))
    f:close()
  else
    io.stdout:write(vim.json.encode(H.results) .. '\n')
  end
  -- Stop servers the LSP way (shutdown + exit) so they flush; force after 5 s.
  local clients = vim.lsp.get_clients()
  for _, client in ipairs(clients) do
    pcall(function()
      client:stop()
    end)
  end
  vim.wait(5000, function()
    for _, client in ipairs(clients) do
      if not client:is_stopped() then
        return false
      end
    end
    return true
  end, 10)
  for _, client in ipairs(clients) do
    pcall(function()
      client:stop(true)
    end)
  end
  os.exit(ok and 0 or 1)
end

local deadline = assert(uv.new_timer())
deadline:start(
  1000 * tonumber(vim.env.DSH_DEADLINE or '20'),
  0,
  vim.schedule_wrap(function()
    H.results.error = 'deadline reached in case ' .. tostring(H.current)
    H.finish(1)
  end)
)

---@param name string
---@param ok any
---@param detail? any
function H.check(name, ok, detail)
  H.results.checks[#H.results.checks + 1] = {
    case = H.current,
    name = name,
    ok = ok and true or false,
    detail = detail ~= nil and vim.inspect(detail) or nil,
  }
  return ok
end

---@param name string
function H.eq(name, got, want)
  local ok = vim.deep_equal(got, want)
  return H.check(name, ok, not ok and { got = got, want = want } or nil)
end

--- Wait up to `ms` for `cond()`; records a failed check named `what` on timeout.
---@return boolean
function H.wait(what, ms, cond)
  local ok = vim.wait(ms, cond, 5)
  if not ok then
    H.check('waited for ' .. what, false, 'timed out after ' .. ms .. ' ms')
  end
  return ok
end

---@param name string
---@param fn fun()
function H.case(name, fn)
  cases[name] = fn
  order[#order + 1] = name
end

--- Run the selected case(s), then finish.
function H.run()
  local only = vim.env.DSH_CASE
  if only and only ~= '' and not cases[only] then
    H.results.error = 'unknown case ' .. only
    return H.finish(1)
  end
  for _, name in ipairs(order) do
    if not only or only == '' or only == name then
      H.current = name
      local ok, err = xpcall(cases[name], debug.traceback)
      if not ok then
        H.check('no error', false, err)
      end
    end
  end
  H.finish()
end

--- All lines of `buf`.
---@param buf integer
---@return string[]
function H.lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

--- A fresh scratch buffer shown in the current window.
---@return integer
function H.scratch()
  local buf = vim.api.nvim_create_buf(true, true)
  vim.api.nvim_set_current_buf(buf)
  return buf
end

return H
