--- The `:Dsh*` user commands (created by plugin/dsh.lua; each requires its module lazily).

local M = {}

local function dsh()
  return require('dsh')
end

M.specs = {
  Dsh = {
    function()
      dsh().toggle()
    end,
    { desc = 'dsh: toggle the chat window' },
  },
  DshAsk = {
    function(cmd)
      local opts = { bufnr = vim.api.nvim_get_current_buf() }
      if cmd.range > 0 then
        opts.line1, opts.line2 = cmd.line1, cmd.line2
      end
      if require('dsh.config').options.open_on_ask then
        local prev = vim.api.nvim_get_current_win()
        require('dsh.chat').open()
        vim.api.nvim_set_current_win(prev)
      end
      dsh().ask(cmd.args, opts)
    end,
    { desc = 'dsh: ask the agent (range: attach the lines)', nargs = '+', range = true },
  },
  DshCancel = {
    function()
      dsh().cancel()
    end,
    { desc = 'dsh: cancel the running turn' },
  },
  DshSessions = {
    function()
      dsh().sessions()
    end,
    { desc = 'dsh: pick a session and resume it' },
  },
  DshNew = {
    function()
      dsh().new_session(function(_, err)
        if err then
          vim.notify('dsh: ' .. err, vim.log.levels.ERROR)
        end
      end)
    end,
    { desc = 'dsh: start a new session' },
  },
  DshAnswer = {
    function(cmd)
      require('dsh.permission').answer_command(cmd.args)
    end,
    {
      desc = 'dsh: answer the waiting question (or go to it); always allow: [prefix]',
      nargs = '*',
      complete = function()
        local q = require('dsh.permission').pending[1]
        return q and vim.tbl_map(function(o)
          return o.optionId
        end, q.options) or {}
      end,
    },
  },
  DshCompact = {
    function()
      require('dsh.agent_view').compact()
    end,
    { desc = 'dsh: summarize the session history now (free context)' },
  },
  DshChanges = {
    function()
      dsh().changes()
    end,
    { desc = 'dsh: quickfix list of the files the last turn changed' },
  },
}

function M.create()
  for name, spec in pairs(M.specs) do
    vim.api.nvim_create_user_command(name, spec[1], spec[2])
  end
end

return M
