--- Folding of reasoning blocks in chat windows (`foldexpr` / `foldtext`).
---
--- A reasoning block is a range extmark in `dsh.render`'s `reasoning` namespace; its first
--- line (the header) opens a level-1 fold and the rest of the range stays in it.

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
