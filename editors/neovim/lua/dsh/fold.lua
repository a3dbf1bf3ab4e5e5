--- Folding of reasoning blocks in chat windows (`foldexpr` / `foldtext`).
---
--- A reasoning block is a range extmark in `dsh.render`'s `reasoning` namespace; its first
--- line (the header) opens a level-1 fold and the rest of the range stays in it.
---
--- Neovim does not update expression folds while Insert mode is on (in any window), so a
--- reasoning block streamed while the user types would show unfolded until they leave it;
--- `refresh` recomputes them then, keeping the folds the user opened open.

local api = vim.api

local M = {}

--- The fold expression of chat windows: reasoning blocks fold (level 1), all else is 0.
---@param lnum integer
---@return string
function M.foldexpr(lnum)
  local row = lnum - 1
  local marks = api.nvim_buf_get_extmarks(
    0,
    require('dsh.render').ns.reasoning,
    { row, 0 },
    { row, -1 },
    { overlap = true, details = true, limit = 1 }
  )
  local mark = marks[1]
  if not mark then
    return '0'
  end
  if mark[2] == row then
    return '>1'
  end
  return '1'
end

--- Recompute the folds of chat window `win` now (Neovim skips it in Insert mode), keeping
--- open the reasoning blocks the user opened, and the window's cursor where it was.
---@param win integer
function M.refresh(win)
  local buf = api.nvim_win_get_buf(win)
  local ns = require('dsh.render').ns.reasoning
  api.nvim_win_call(win, function()
    local opened = {}
    for _, mark in ipairs(api.nvim_buf_get_extmarks(buf, ns, 0, -1, {})) do
      local lnum = mark[2] + 1
      if vim.fn.foldlevel(lnum) > 0 and vim.fn.foldclosed(lnum) == -1 then
        opened[#opened + 1] = lnum
      end
    end
    local cursor = api.nvim_win_get_cursor(win)
    -- `zx` runs in Normal mode (inside `:normal`), where the fold update is not skipped
    vim.cmd('silent! keepjumps normal! zx')
    for _, lnum in ipairs(opened) do
      vim.cmd('silent! ' .. lnum .. 'foldopen')
    end
    pcall(api.nvim_win_set_cursor, win, cursor)
  end)
end

--- The fold text: the reasoning header and the folded line count.
---@return string
function M.foldtext()
  local count = vim.v.foldend - vim.v.foldstart
  return string.format(
    '%s (%d line%s)',
    require('dsh.render').reasoning_header,
    count,
    count == 1 and '' or 's'
  )
end

return M
