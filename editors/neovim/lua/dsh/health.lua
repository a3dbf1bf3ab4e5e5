--- `:checkhealth dsh`: Neovim version, server command and version, API key variable,
--- running client with the model and endpoint it uses (`dsh/status`), last server error.

local M = {}

function M.check()
  local health = vim.health
  local config = require('dsh.config')
  local client_mod = require('dsh.client')

  health.start('dsh: Neovim')
  local v = vim.version()
  local version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.11') == 1 then
    health.ok('Neovim ' .. version)
  else
    health.error('Neovim ' .. version .. ' is too old', 'dsh needs Neovim 0.11 or newer')
  end

  health.start('dsh: server')
  local lsp_config = vim.lsp.config.dsh or {}
  local cmd = type(lsp_config.cmd) == 'table' and lsp_config.cmd or config.options.cmd
  local exe = cmd[1]
  if vim.fn.executable(exe) == 1 then
    health.ok('server command found: ' .. vim.fn.exepath(exe))
    local done =
      vim.system(vim.list_extend(vim.deepcopy(cmd), { '--version' }), { text = true }):wait(10000)
    if done.code == 0 then
      health.ok('server version: ' .. vim.trim(done.stdout or ''))
    else
      health.warn(
        '`' .. table.concat(cmd, ' ') .. ' --version` failed: ' .. vim.trim(done.stderr or '')
      )
    end
  else
    health.error(
      'server command not found: ' .. exe,
      { 'install dsh-lsp (pip install -e .) or set `cmd` in require("dsh").setup()' }
    )
  end
  if vim.lsp.is_enabled('dsh') then
    health.ok("vim.lsp.enable('dsh') is on")
  else
    health.info("vim.lsp.enable('dsh') is off: the chat starts the server on first use")
  end

  health.start('dsh: model')
  local key_env = config.options.model.api_key_env
  local key = vim.env[key_env]
  if key and key ~= '' then
    health.ok('API key variable $' .. key_env .. ' is set')
  else
    health.warn('API key variable $' .. key_env .. ' is not set', {
      'export ' .. key_env .. '=… before starting Neovim, or set model.api_key_env',
    })
  end

  health.start('dsh: client')
  local client = client_mod.get()
  if client then
    local info = client.server_info or {}
    health.ok(
      string.format(
        'client %d running (%s %s), root %s',
        client.id,
        info.name or 'dsh-lsp',
        info.version or '',
        client.root_dir or '?'
      )
    )
    local dsh_caps = vim.tbl_get(client.server_capabilities or {}, 'experimental', 'dsh')
    if dsh_caps then
      health.ok('server speaks dsh protocol version ' .. tostring(dsh_caps.version))
    else
      health.warn('the server did not advertise experimental.dsh')
    end
    local answer, err = client:request_sync('dsh/status', vim.empty_dict(), 10000)
    local status = answer and answer.result
    if status then
      health.ok('model in use: ' .. status.model)
      health.ok('endpoint: ' .. status.baseUrl)
      local variable = '$' .. status.apiKeyEnv
      if status.apiKeySet then
        health.ok('server sees API key variable ' .. variable .. ' (set)')
      elseif status.apiKeyRequired then
        health.warn('server sees API key variable ' .. variable .. ' not set', {
          'prompts fail with AUTH: export ' .. status.apiKeyEnv .. ' before starting Neovim',
        })
      else
        health.ok('local endpoint: no API key needed')
      end
    else
      local why = (answer and answer.err) and client_mod.error_text(answer.err) or err
      health.warn('dsh/status failed: ' .. tostring(why or 'no answer'))
    end
  else
    health.info('no dsh client is running')
  end
  local session = client_mod.state.session_id
  health.info('active session: ' .. (session or 'none'))
  if client_mod.state.last_error then
    health.warn('last server error: ' .. client_mod.state.last_error)
  else
    health.ok('no server error recorded')
  end
end

return M
