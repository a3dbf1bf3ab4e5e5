--- An in-process fake dsh server for plugin tests (`vim.lsp.Config.cmd` as a function).
---
--- `F.new(handlers, opts?)` returns `srv` (`opts.capabilities` are merged into the server's
--- capabilities; `opts.other = true` makes it another language server, not a dsh one);
--- `srv.cmd` goes into `vim.lsp.config('dsh', {cmd = …})`.
--- `handlers[method](params, reply, srv)` answers requests (`reply(err, result)`, any time
--- later) and sees notifications (`reply` is nil). `srv:notify(method, params)` and
--- `srv:request(method, params, cb)` talk to the client as a server would.

local F = {}

local Server = {}
Server.__index = Server

---@param handlers table<string, fun(params: table, reply?: fun(err: any, result: any), srv: table)>
---@param opts? {capabilities?: table, other?: boolean}
function F.new(handlers, opts)
  local srv = setmetatable({ handlers = handlers or {}, received = {}, dispatchers = nil }, Server)
  srv.cmd = function(dispatchers)
    srv.dispatchers = dispatchers
    local closing = false
    local next_id = 0
    return {
      request = function(method, params, callback)
        next_id = next_id + 1
        srv.received[#srv.received + 1] = { method = method, params = params, id = next_id }
        local function reply(err, result)
          vim.schedule(function()
            callback(err, result)
          end)
        end
        if method == 'initialize' then
          srv.init_params = params
          reply(nil, {
            capabilities = vim.tbl_deep_extend('force', {
              textDocumentSync = { openClose = true, change = 2 },
              experimental = not (opts and opts.other) and { dsh = { version = 1 } } or nil,
            }, opts and opts.capabilities or {}),
            serverInfo = { name = 'fake-dsh', version = '0.0' },
          })
        elseif method == 'shutdown' then
          reply(nil, vim.NIL)
        elseif srv.handlers[method] then
          srv.handlers[method](params, reply, srv)
        else
          reply({ code = -32601, message = 'unknown method ' .. method })
        end
        return true, next_id
      end,
      notify = function(method, params)
        srv.received[#srv.received + 1] = { method = method, params = params }
        if srv.handlers[method] then
          srv.handlers[method](params, nil, srv)
        end
        if method == 'exit' then
          closing = true
        end
        return true
      end,
      is_closing = function()
        return closing
      end,
      terminate = function()
        closing = true
      end,
    }
  end
  return srv
end

--- Send a notification to the client.
function Server:notify(method, params)
  self.dispatchers.notification(method, params)
end

--- Send a request to the client; `cb(result, err)` when the handler returns.
function Server:request(method, params, cb)
  coroutine.wrap(function()
    local result, err = self.dispatchers.server_request(method, params)
    if cb then
      cb(result, err)
    end
  end)()
end

--- Messages of `method` the server received.
function Server:messages(method)
  local out = {}
  for _, m in ipairs(self.received) do
    if m.method == method then
      out[#out + 1] = m
    end
  end
  return out
end

return F
