--- Options of the dsh plugin: defaults, validation and the derived LSP settings.
---
--- `setup()` follows mini.nvim's sequence: validate every field (type and allowed values,
--- errors prefixed `(dsh)`), deep-merge over the defaults, then apply (LSP config, highlight
--- links, one augroup). `M.options` always holds a complete, valid table.

local M = {}
local H = {}

---@class dsh.ModelOptions
---@field name? string Model name sent to the server (server default when nil).
---@field base_url? string OpenAI-compatible API root (server default when nil).
---@field api_key_env string Environment variable holding the API key.
---@field thinking? "enabled"|"disabled" Thinking mode (provider default when nil).

---@class dsh.PermissionOptions
---@field edit "allow"|"ask"
---@field shell "ask"|"allow"|"deny"
---@field read_outside_workspace "ask"|"allow"|"deny"
---@field prompt "float"|"select" A question waits in a float for `:DshAnswer`, or is `vim.ui.select` at once.

---@class dsh.EditOptions
---@field save_after_turn boolean The server asks the plugin to `:write` the agent's edits after each turn.

---@class dsh.KeymapOptions
---@field send string Chat buffer, normal and insert mode: send the prompt.
---@field send_normal string Chat buffer, normal mode: send the prompt (or jump from a tool line).
---@field cancel string Chat buffer: cancel the running turn.
---@field close string Chat buffer, normal mode: close the chat window.

---@class dsh.WindowOptions
---@field layout "vsplit"|"split"|"float"
---@field width number Columns, or a fraction of the editor width when < 1.
---@field height number Lines, or a fraction of the editor height when < 1.
---@field diff "float"|"split" Where permission requests preview an edit.

---@class dsh.Options
---@field cmd string[] Server command.
---@field cmd_env? table<string,string> Extra environment for the server process.
---@field root_markers string[] Files that mark a workspace root.
---@field enable boolean `setup()` calls `vim.lsp.enable('dsh')`.
---@field model dsh.ModelOptions
---@field permissions dsh.PermissionOptions
---@field edits dsh.EditOptions
---@field max_steps_per_turn? integer
---@field session_dir? string
---@field keymaps dsh.KeymapOptions
---@field window dsh.WindowOptions
---@field icons table<string,string> Tool-call status icons.
---@field open_on_ask boolean `:DshAsk` opens the chat window.

---@type dsh.Options
M.defaults = {
  cmd = { 'dsh-lsp' },
  cmd_env = nil,
  root_markers = { '.git', '.hg', 'pyproject.toml', 'package.json', 'Cargo.toml', 'go.mod' },
  enable = true,
  model = { name = nil, base_url = nil, api_key_env = 'DEEPSEEK_API_KEY', thinking = nil },
  permissions = { edit = 'allow', shell = 'ask', read_outside_workspace = 'ask', prompt = 'float' },
  edits = { save_after_turn = false },
  max_steps_per_turn = nil,
  session_dir = nil,
  keymaps = { send = '<C-s>', send_normal = '<CR>', cancel = '<C-c>', close = 'q' },
  window = { layout = 'vsplit', width = 0.4, height = 0.8, diff = 'float' },
  icons = {
    pending = '○',
    in_progress = '◐',
    completed = '✓',
    failed = '✗',
    cancelled = '⊘',
  },
  open_on_ask = true,
}

---@type dsh.Options
M.options = vim.deepcopy(M.defaults)

--- Validate `opts`, merge it over the defaults and apply it.
--- Raises an error naming the offending field when an option is invalid.
---@param opts? table
function M.setup(opts)
  opts = opts or {}
  H.check_type('opts', opts, 'table')
  local merged = vim.tbl_deep_extend('force', vim.deepcopy(M.defaults), opts)
  -- Lists replace rather than merge index by index.
  merged.cmd = opts.cmd or merged.cmd
  merged.root_markers = opts.root_markers or merged.root_markers
  H.validate(merged)
  M.options = merged
  H.apply(merged)
end

--- The `initializationOptions` / `workspace/configuration` section `dsh` for the server.
---@param options? dsh.Options
---@return table
function M.server_settings(options)
  local o = options or M.options
  return {
    model = {
      name = o.model.name,
      baseUrl = o.model.base_url,
      apiKeyEnv = o.model.api_key_env,
      thinking = o.model.thinking,
    },
    permissions = {
      edit = o.permissions.edit,
      shell = o.permissions.shell,
      readOutsideWorkspace = o.permissions.read_outside_workspace,
    },
    edits = { saveAfterTurn = o.edits.save_after_turn },
    maxStepsPerTurn = o.max_steps_per_turn,
    sessionDir = o.session_dir,
  }
end

--- The `vim.lsp.Config` fields that depend on the options (layered over `lsp/dsh.lua`).
---@param options? dsh.Options
---@return vim.lsp.Config
function M.lsp_overrides(options)
  local o = options or M.options
  local settings = M.server_settings(o)
  return {
    cmd = o.cmd,
    cmd_env = o.cmd_env,
    init_options = settings,
    settings = { dsh = settings },
  }
end

-- Helpers -------------------------------------------------------------------

function H.error(msg)
  error('(dsh) ' .. msg, 0)
end

function H.check_type(name, value, ref, allow_nil)
  if allow_nil and value == nil then
    return
  end
  if type(value) == ref or (ref == 'callable' and vim.is_callable(value)) then
    return
  end
  H.error(string.format('`%s` should be %s, not %s', name, ref, type(value)))
end

function H.check_enum(name, value, allowed)
  if not vim.tbl_contains(allowed, value) then
    H.error(
      string.format(
        '`%s` should be one of %s, not %s',
        name,
        table.concat(allowed, '|'),
        vim.inspect(value)
      )
    )
  end
end

function H.check_list(name, value, item_type, allow_nil)
  if allow_nil and value == nil then
    return
  end
  H.check_type(name, value, 'table')
  if not vim.islist(value) or #value == 0 then
    H.error(string.format('`%s` should be a non-empty list', name))
  end
  for i, item in ipairs(value) do
    H.check_type(string.format('%s[%d]', name, i), item, item_type)
  end
end

function H.check_size(name, value)
  H.check_type(name, value, 'number')
  if value <= 0 then
    H.error(string.format('`%s` should be positive, not %s', name, value))
  end
end

---@param o dsh.Options
function H.validate(o)
  H.check_list('cmd', o.cmd, 'string')
  H.check_type('cmd_env', o.cmd_env, 'table', true)
  H.check_list('root_markers', o.root_markers, 'string')
  H.check_type('enable', o.enable, 'boolean')
  H.check_type('open_on_ask', o.open_on_ask, 'boolean')

  H.check_type('model', o.model, 'table')
  H.check_type('model.name', o.model.name, 'string', true)
  H.check_type('model.base_url', o.model.base_url, 'string', true)
  H.check_type('model.api_key_env', o.model.api_key_env, 'string')
  if o.model.thinking ~= nil then
    H.check_enum('model.thinking', o.model.thinking, { 'enabled', 'disabled' })
  end

  H.check_type('permissions', o.permissions, 'table')
  H.check_enum('permissions.edit', o.permissions.edit, { 'allow', 'ask' })
  H.check_enum('permissions.shell', o.permissions.shell, { 'ask', 'allow', 'deny' })
  H.check_enum('permissions.prompt', o.permissions.prompt, { 'float', 'select' })
  H.check_enum(
    'permissions.read_outside_workspace',
    o.permissions.read_outside_workspace,
    { 'ask', 'allow', 'deny' }
  )

  H.check_type('edits', o.edits, 'table')
  H.check_type('edits.save_after_turn', o.edits.save_after_turn, 'boolean')

  H.check_type('max_steps_per_turn', o.max_steps_per_turn, 'number', true)
  if
    o.max_steps_per_turn ~= nil and (o.max_steps_per_turn < 1 or o.max_steps_per_turn % 1 ~= 0)
  then
    H.error('`max_steps_per_turn` should be a positive integer')
  end
  H.check_type('session_dir', o.session_dir, 'string', true)

  H.check_type('keymaps', o.keymaps, 'table')
  for _, key in ipairs({ 'send', 'send_normal', 'cancel', 'close' }) do
    H.check_type('keymaps.' .. key, o.keymaps[key], 'string')
  end

  H.check_type('window', o.window, 'table')
  H.check_enum('window.layout', o.window.layout, { 'vsplit', 'split', 'float' })
  H.check_size('window.width', o.window.width)
  H.check_size('window.height', o.window.height)
  H.check_enum('window.diff', o.window.diff, { 'float', 'split' })

  H.check_type('icons', o.icons, 'table')
  for _, status in ipairs({ 'pending', 'in_progress', 'completed', 'failed', 'cancelled' }) do
    H.check_type('icons.' .. status, o.icons[status], 'string')
  end
end

---@param o dsh.Options
function H.apply(o)
  vim.lsp.config('dsh', M.lsp_overrides(o))
  require('dsh.highlights').setup()
  if o.enable then
    vim.lsp.enable('dsh')
  end
end

return M
