-- dsh: user commands only; everything else loads on first use (see :help dsh).
if vim.g.loaded_dsh or vim.g.dsh_disable then
  return
end
vim.g.loaded_dsh = true

if vim.fn.has('nvim-0.11') == 0 then
  vim.notify_once('dsh: Neovim 0.11 or newer is required', vim.log.levels.WARN)
  return
end

require('dsh.commands').create()
require('dsh.highlights').setup()
vim.api.nvim_create_autocmd('ColorScheme', {
  group = vim.api.nvim_create_augroup('dsh', { clear = true }),
  desc = 'dsh: restore the default highlight links',
  callback = function()
    require('dsh.highlights').setup()
  end,
})
