--- Highlight groups of the dsh plugin, linked by default (`default = true`) so that a
--- colorscheme or the user can override each one.

local M = {}

--- Group name → default link target. Documented in `:help dsh-highlights`.
M.links = {
  DshUser = 'Title',
  DshAgent = 'Title',
  DshReasoning = 'Comment',
  DshToolPending = 'DiagnosticHint',
  DshToolRunning = 'DiagnosticWarn',
  DshToolDone = 'DiagnosticOk',
  DshToolFailed = 'DiagnosticError',
  DshToolCancelled = 'Comment',
  DshLocation = 'Underlined',
  DshAttachment = 'Special',
  DshUsage = 'Comment',
  DshCancelled = 'WarningMsg',
  DshError = 'ErrorMsg',
  DshPromptSeparator = 'NonText',
}

function M.setup()
  for group, target in pairs(M.links) do
    vim.api.nvim_set_hl(0, group, { link = target, default = true })
  end
end

return M
